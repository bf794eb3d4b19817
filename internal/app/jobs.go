package app

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// ConfigJobs are the schedules of config.yaml as cron jobs.
func ConfigJobs(c config.Config) []cron.Job {
	jobs := make([]cron.Job, 0, len(c.Schedules))
	for _, name := range slices.Sorted(maps.Keys(c.Schedules)) {
		s := c.Schedules[name]
		jobs = append(jobs, cron.Job{Name: name, Enabled: s.Enabled.Or(true), Source: cron.SourceConfig, Spec: cron.Spec{
			Schedule: s.Cron, Timezone: s.Timezone, SessionType: string(s.SessionType), Prompt: s.Prompt,
			Skills: s.Skills, Toolsets: s.Toolsets, Model: s.Model, Agent: s.Agent, Team: s.Team, Deliver: s.Deliver,
			Script: s.Script, NoAgent: s.NoAgent, CatchUp: string(s.CatchUp), Memory: string(s.Memory),
		}})
	}
	return jobs
}

// SyncJobs brings the job store in line with config.yaml's schedules.
func (a *App) SyncJobs(ctx context.Context) error {
	if _, err := a.Jobs.Sync(ctx, ConfigJobs(a.Config.Config)); err != nil {
		return fmt.Errorf("config.yaml: schedules: %w", err)
	}
	return nil
}

// JobZone is the zone of jobs that name none: timezone, else the
// machine's.
func JobZone(c config.Config) string {
	if c.Timezone != "" {
		return c.Timezone
	}
	return MachineZone()
}

// MachineZone is the IANA name of the machine's time zone: $TZ, else the
// target of /etc/localtime, else UTC.
func MachineZone() string {
	if tz := os.Getenv("TZ"); tz != "" {
		return strings.TrimPrefix(tz, ":")
	}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	return "UTC"
}

// NotifyConfig is the delivery accounts of config.yaml (and .env) for the
// notify package.
func NotifyConfig(l *config.Loaded, log *slog.Logger) notify.Config {
	d := l.Config.Delivery
	token := string(d.TelegramBotToken)
	if token == "" {
		token = envValue(l, "TELEGRAM_BOT_TOKEN")
	}
	password := string(d.SMTP.Password)
	if password == "" {
		password = envValue(l, "SMTP_PASSWORD")
	}
	return notify.Config{
		Home:          l.Paths.Home,
		TelegramToken: token,
		SMTP: notify.SMTP{Host: d.SMTP.Host, Port: d.SMTP.Port, Username: d.SMTP.Username,
			Password: password, From: d.SMTP.From},
		Backoff: d.RetryBackoff,
		Logger:  log,
	}
}
