package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/engine"
	"github.com/hermes-go/hermes/notify"
	"github.com/hermes-go/hermes/tool"
)

// scriptTimeout bounds a job's pre-run script.
const scriptTimeout = 5 * time.Minute

// silentPrefix starts a reply that is stored but not delivered.
const silentPrefix = "[SILENT]"

// configJobs are the schedules of config.yaml as cron jobs.
func configJobs(c config.Config) []cron.Job {
	jobs := make([]cron.Job, 0, len(c.Schedules))
	for _, name := range slices.Sorted(maps.Keys(c.Schedules)) {
		s := c.Schedules[name]
		jobs = append(jobs, cron.Job{Name: name, Enabled: s.Enabled.Or(true), Source: cron.SourceConfig, Spec: cron.Spec{
			Schedule: s.Cron, Timezone: s.Timezone, SessionType: string(s.SessionType), Prompt: s.Prompt,
			Skills: s.Skills, Toolsets: s.Toolsets, Model: s.Model, Deliver: s.Deliver,
			Script: s.Script, NoAgent: s.NoAgent, CatchUp: string(s.CatchUp),
		}})
	}
	return jobs
}

// jobRunner runs a scheduled job: its script, then a turn of the agent in
// a fresh session (or the job's own), then delivery of the reply along its
// chain, ending in the local file.
type jobRunner struct {
	rt       *wiring
	notifier *notify.Notifier
	log      *slog.Logger
}

func (j *jobRunner) Run(ctx context.Context, job cron.Job, scheduled time.Time) cron.RunResult {
	log := j.log.With("job", job.Name)
	start := time.Now()
	var scriptOut string
	if job.Script != "" {
		out, err := runScript(ctx, job.Script)
		if err != nil {
			log.Warn("job script failed", "error", err)
			return cron.RunResult{Err: fmt.Errorf("script: %w", err), Output: out}
		}
		scriptOut = out
	}
	res := cron.RunResult{}
	text := scriptOut
	if !job.NoAgent {
		prompt, err := j.prompt(job, scriptOut)
		if err != nil {
			return cron.RunResult{Err: err}
		}
		sid := ""
		if job.SessionType == cron.SessionContinue {
			sid = job.SessionID
		}
		turn, err := j.rt.engine.Turn(ctx, sid, engine.Input{Text: prompt, Source: "cron",
			Approver: func(id string) tool.Approver { return j.rt.policy.For(id) }}, nil)
		if err != nil {
			return cron.RunResult{Err: err}
		}
		res.SessionID = turn.SessionID
		text = turn.Final
		if turn.Err != nil && text == "" {
			res.Err = turn.Err
		}
	}
	res.Output = text
	if strings.HasPrefix(strings.TrimSpace(text), silentPrefix) {
		res.Status = cron.StatusSilent
		log.Info("job run finished silently", "session_id", res.SessionID, "duration_ms", time.Since(start).Milliseconds())
		return res
	}
	chain, err := j.notifier.ParseChain(job.Deliver)
	if err != nil {
		res.Err = err
		return res
	}
	rep := j.notifier.Deliver(context.WithoutCancel(ctx), chain, notify.Message{
		Title: job.Name, Text: text, Job: job.Name, RunID: scheduled.Format(time.RFC3339)})
	for _, a := range rep.Attempts {
		res.Deliveries = append(res.Deliveries, cron.Delivery{Target: a.Target, OK: a.Status == "ok", Error: a.Error})
	}
	log.Info("job run finished", "session_id", res.SessionID, "delivered", rep.Delivered, "duration_ms", time.Since(start).Milliseconds())
	return res
}

// prompt is the job's first message: its skills, the prompt, and the
// script's output.
func (j *jobRunner) prompt(job cron.Job, scriptOut string) (string, error) {
	var parts []string
	for _, name := range job.Skills {
		inv, err := j.rt.tools.skills.Invocation(name, "this scheduled job")
		if err != nil {
			return "", fmt.Errorf("skill %q: %w", name, err)
		}
		parts = append(parts, inv)
	}
	parts = append(parts, job.Prompt)
	if scriptOut != "" {
		parts = append(parts, "Output of the job's script:\n"+scriptOut)
	}
	return strings.Join(parts, "\n\n"), nil
}

// runScript runs a job's script with sh and returns its output.
func runScript(ctx context.Context, script string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			return string(out), fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return string(out), err
	}
	return strings.TrimSpace(string(out)), nil
}
