package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// DefaultLease is how long a claim holds a task between renewals when a
// Worker names no lease: a crashed worker's task waits at most this long
// before another worker claims it.
const DefaultLease = 30 * time.Second

// Worker claims the tasks of one role, one at a time, and runs each with
// Run while it renews the claim's lease. Several Workers, in one process
// or many, share a queue.
type Worker struct {
	Store *Store
	Role  string
	// RunID, when set, limits the worker to the tasks of that run.
	RunID int64
	// Run does a task given the artifacts of its inputs. Its ctx ends
	// when the worker stops or loses the claim (the lease could not be
	// renewed in time and another worker may have the task): then its
	// result is dropped.
	Run func(ctx context.Context, t Task, inputs []Artifact) (Result, error)
	// Name identifies the worker in claims; empty means a random one.
	Name string
	// Lease is a claim's length; zero means DefaultLease. It is renewed
	// every third of it.
	Lease time.Duration
	// Logger receives failures to renew or record; nil discards them.
	Logger *slog.Logger
}

// Serve claims and runs tasks until ctx ends, and returns ctx's error. A
// task running when ctx ends is neither completed nor failed: its lease
// runs out and another worker claims it again.
func (w *Worker) Serve(ctx context.Context) error {
	if w.Store == nil || w.Role == "" || w.Run == nil {
		return errors.New("team: worker needs Store, Role and Run")
	}
	for {
		holder := w.holder()
		t, err := w.Store.ClaimWait(ctx, w.RunID, w.Role, holder, w.lease())
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			w.log().Warn("team: claim failed", "role", w.Role, "err", err)
			if err := w.Store.clk.Sleep(ctx, w.lease()/3); err != nil {
				return err
			}
			continue
		}
		w.Do(ctx, t, holder)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Do runs task t, claimed by holder, renewing its lease, and records how
// it ended: done with Run's result, or failed with Run's error (to be
// retried while attempts are left). It records nothing when ctx ends or
// the claim is lost first.
func (w *Worker) Do(ctx context.Context, t Task, holder string) {
	lease := w.lease()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		w.renew(runCtx, cancel, t.ID, holder, lease)
	}()
	res, err := w.run(runCtx, t)
	cancel(nil)
	<-renewed
	if ctx.Err() != nil {
		return
	}
	if cause := context.Cause(runCtx); errors.Is(cause, ErrLeaseLost) {
		w.log().Warn("team: claim lost while the task ran; its result is dropped", "task", t.ID, "err", cause)
		return
	}
	if err == nil {
		err = w.Store.Complete(ctx, t.ID, holder, res)
		if err == nil || errors.Is(err, ErrLeaseLost) {
			return
		}
		err = fmt.Errorf("its result could not be recorded: %w", err)
	}
	if _, ferr := w.Store.Fail(ctx, t.ID, holder, err.Error()); ferr != nil {
		w.log().Warn("team: recording a failed task", "task", t.ID, "err", ferr)
	}
}

// run reads t's inputs and calls Run.
func (w *Worker) run(ctx context.Context, t Task) (Result, error) {
	inputs, err := w.Store.Artifacts(ctx, t.Inputs...)
	if err != nil {
		return Result{}, err
	}
	return w.Run(ctx, t, inputs)
}

// renew extends the lease every third of it until ctx ends. When the
// claim is lost, or renewals fail until the lease has passed, it cancels
// the task's run with ErrLeaseLost.
func (w *Worker) renew(ctx context.Context, cancel context.CancelCauseFunc, id int64, holder string, lease time.Duration) {
	err := w.Store.keep(ctx, lease, func(ctx context.Context) error { return w.Store.Renew(ctx, id, holder, lease) },
		func(err error) { w.log().Warn("team: renewing a lease", "task", id, "err", err) })
	if err != nil {
		cancel(err)
	}
}

func (w *Worker) lease() time.Duration {
	if w.Lease > 0 {
		return w.Lease
	}
	return DefaultLease
}

// holder is a new claim's holder: the worker's name and a random suffix,
// so no two claims share one.
func (w *Worker) holder() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := w.Name
	if name == "" {
		name = w.Role
	}
	return name + "/" + hex.EncodeToString(b[:])
}

func (w *Worker) log() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.New(slog.DiscardHandler)
}
