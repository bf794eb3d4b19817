package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/notify"
)

// deliverTestTimeout bounds sending the test messages of every job.
const deliverTestTimeout = time.Minute

// schedulesCheck parses every job's schedule (config.yaml's and those
// stored in state.db) and reports its next fire, and parses its delivery
// targets; with DeliverTest it also sends a test message through each
// job's chain and fails a job whose message fell through to the local
// file.
func schedulesCheck(l *config.Loaded, o DoctorOptions) doctor.Check {
	timeout := doctor.DefaultTimeout
	if o.DeliverTest {
		timeout = deliverTestTimeout
	}
	return doctor.Check{Name: "schedules", Timeout: timeout, Run: func(ctx context.Context) []doctor.Result {
		jobs := ConfigJobs(l.Config)
		var out []doctor.Result
		stored, err := storedJobs(ctx, l, o)
		if err != nil {
			out = append(out, doctor.Problem("schedules", doctor.Warn, "hermes cron list",
				"the jobs stored in state.db are not checked: %v", err))
		}
		jobs = append(jobs, stored...)
		if len(jobs) == 0 {
			return append(out, doctor.Okf("schedules", "no scheduled jobs"))
		}
		n := notify.New(NotifyConfig(l, o.Logger))
		now := clock.OrReal(o.Clock).Now()
		for _, j := range jobs {
			out = append(out, checkJob(ctx, l, n, j, now, o.DeliverTest))
		}
		return out
	}}
}

// storedJobs are the jobs of state.db that config.yaml does not declare;
// none when state.db does not exist yet (the doctor does not create it).
func storedJobs(ctx context.Context, l *config.Loaded, o DoctorOptions) ([]cron.Job, error) {
	if _, err := os.Stat(l.Paths.StateDB); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	a, err := OpenStores(ctx, Options{Config: l, Logger: o.Logger, Clock: o.Clock})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	all, err := a.Jobs.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(j cron.Job) bool { return j.Source == cron.SourceConfig }), nil
}

// checkJob reports one job: its next fire in the job's zone, where it
// delivers, and with send, what became of a test message.
func checkJob(ctx context.Context, l *config.Loaded, n *notify.Notifier, j cron.Job, now time.Time, send bool) doctor.Result {
	name := "schedule: " + j.Name
	fix := "hermes cron edit " + doctor.ShellQuote(j.Name) + " --deliver local"
	schedFix := "hermes cron edit " + doctor.ShellQuote(j.Name) + " --schedule '0 9 * * *'"
	if j.Source == cron.SourceConfig {
		fix = "${EDITOR:-vi} " + doctor.ShellQuote(l.Paths.ConfigFile) + " (schedules." + j.Name + ")"
		schedFix = fix
	}
	zone := j.Timezone
	if zone == "" {
		zone = JobZone(l.Config)
	}
	s, err := cron.Parse(j.Schedule, zone, now)
	if err != nil {
		return doctor.Problem(name, doctor.Fail, schedFix, "schedule %q: %v", j.Schedule, err)
	}
	chain, err := n.ParseChain(j.Deliver)
	if err != nil {
		return doctor.Problem(name, doctor.Fail, fix, "deliver: %v", err)
	}
	when := "no further fire"
	if next, ok := s.Next(now); ok {
		loc, _ := cron.LoadZone(zone, "")
		when = "next fire " + next.In(loc).Format("2006-01-02 15:04 MST")
	}
	if !j.Enabled {
		when = "paused"
	}
	// A target carries its key (a robot key, a webhook's token): it is
	// shown the way notify masks it.
	targets := "local"
	if len(chain) > 0 {
		shown := make([]string, len(chain))
		for i, t := range chain {
			shown[i] = t.String()
		}
		targets = strings.Join(shown, " → ")
	}
	if !send {
		return doctor.Okf(name, "%s, delivers to %s", when, targets)
	}
	rep := n.Deliver(ctx, chain, notify.Message{Title: "hermes doctor test message", Text: "A test of the delivery of job " + j.Name + ".", Job: j.Name})
	if rep.Delivered == "" {
		return doctor.Problem(name, doctor.Fail, fix, "%s; the test message was not delivered: %v", when, rep.Err())
	}
	if strings.HasPrefix(rep.Delivered, "local") && !strings.HasPrefix(targets, "local") {
		return doctor.Problem(name, doctor.Fail, fix, "%s; the test message fell through to %s: %v", when, rep.Delivered, lastError(rep))
	}
	return doctor.Okf(name, "%s, test message delivered to %s", when, rep.Delivered)
}

// lastError is the last failed attempt's error of a report.
func lastError(rep notify.Report) string {
	for i := len(rep.Attempts) - 1; i >= 0; i-- {
		if e := rep.Attempts[i].Error; e != "" {
			return rep.Attempts[i].Target + ": " + e
		}
	}
	return "no target took it"
}
