package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/holder"
)

// CheckJobs parses every job's deliver: chain, so a mistyped target is an
// error at start rather than a lost result at 09:00, and finds the agent
// jobs that have no model to call: a warning each, or under strict
// (hermes serve --check) an error.
func (a *App) CheckJobs(ctx context.Context, strict bool) (warnings []string, err error) {
	jobs, err := a.Jobs.List(ctx)
	if err != nil {
		return nil, err
	}
	_, modelErr := a.Config.ResolveModel(config.ModelOverride{})
	var errs []error
	for _, j := range jobs {
		if _, err := a.Notifier.ParseChain(j.Deliver); err != nil {
			errs = append(errs, fmt.Errorf("job %q: %w", j.Name, err))
		}
		if modelErr != nil && !j.NoAgent && j.Enabled {
			if !strict {
				warnings = append(warnings, fmt.Sprintf("job %q will fail: it needs a model: %v", j.Name, modelErr))
				continue
			}
			errs = append(errs, fmt.Errorf("job %q needs a model: %w", j.Name, modelErr))
		}
	}
	return warnings, errors.Join(errs...)
}

// RunScheduler fires this home's jobs with runner until ctx ends, and
// meanwhile applies edits of config.yaml's schedules (loaded with load).
// Only one process fires a home's jobs: the scheduler holds a lease, named
// after this host and process, that others wait for. On return, runs in
// progress have had scheduler.shutdown_timeout to finish.
func (a *App) RunScheduler(ctx context.Context, runner cron.Runner, load config.LoadOptions) error {
	c := a.Config.Config.Scheduler
	sched, err := cron.New(cron.Options{
		Store: a.Jobs, Clock: a.opts.Clock, Logger: a.Log, Runner: a.countedRunner(runner),
		Holder:        a.Holder(),
		Gone:          holder.Gone,
		MaxConcurrent: c.MaxConcurrent,
		ShutdownGrace: c.ShutdownTimeout,
	})
	if err != nil {
		return err
	}
	// Watching starts before the first fire, so no edit is missed.
	if w := a.watchConfig(); w != nil {
		watchCtx, stopWatch := context.WithCancel(ctx)
		watching := make(chan struct{})
		go func() {
			defer close(watching)
			a.reloadSchedules(watchCtx, w, load)
		}()
		defer func() { stopWatch(); <-watching }()
	}
	// A job's team run whose process stopped is taken over by the
	// process that fires the jobs.
	defer a.adoptTeamRuns(ctx, sched.Leading, runner)()
	return sched.Run(ctx)
}
