package engine

import (
	"context"
	"errors"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
)

// jobRun is a run of a job started by hand: recorded as running in the
// job's history, not yet run.
type jobRun struct {
	e     *Engine
	store *cron.Store
	job   cron.Job
	id    int64
	at    time.Time
}

// startJobRun records that a run of the job called name begins now, as
// the scheduler does for a fire.
func (e *Engine) startJobRun(ctx context.Context, name string) (*jobRun, error) {
	store := e.opt.Jobs.Store
	if store == nil {
		return nil, errors.New("jobs cannot be run from here: the job store is not open")
	}
	job, err := store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	now := e.opt.Clock.Now()
	id, err := store.StartRun(ctx, job.Name, now)
	if err != nil {
		return nil, err
	}
	return &jobRun{e: e, store: store, job: job, id: id, at: now}, nil
}

// finish runs the job and records its result in the history, even when
// ctx ended meanwhile.
func (r *jobRun) finish(ctx context.Context) (cron.RunResult, error) {
	res := r.e.RunJob(ctx, r.job, r.at)
	if err := r.store.FinishRun(context.WithoutCancel(ctx), r.id, res); err != nil {
		return res, err
	}
	return res, nil
}

// StartJobNow starts the job called name now and returns at once with the
// id of its run, already in the job's history as running; the run goes
// on in the background, is recorded and delivered like RunJobNow's, and
// ends with Close at the latest (recorded as interrupted). It serves the
// fronts that cannot wait for a run: the HTTP API. ctx is only for
// starting it.
func (e *Engine) StartJobNow(ctx context.Context, name string) (int64, error) {
	run, err := e.startJobRun(ctx, name)
	if err != nil {
		return 0, err
	}
	e.runs.Add(1)
	go func() {
		defer e.runs.Done()
		if _, err := run.finish(e.base); err != nil {
			e.opt.Logger.Error("job run not recorded", "job", name, "run", run.id, "error", err.Error())
		}
	}()
	return run.id, nil
}
