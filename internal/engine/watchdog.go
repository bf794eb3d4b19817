package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
)

// errInactive ends a job run that showed no progress for too long.
type errInactive struct{ after time.Duration }

func (e errInactive) Error() string {
	return fmt.Sprintf("no progress for %s (no model output, no tool call): the run was stopped (scheduler.inactivity_timeout)", e.after)
}

// watchdog cancels a job run's context once the run has shown no progress
// for its timeout. Progress is any agent event: streamed text, a tool
// starting or finishing, a retry. A run that keeps working is never cut,
// however long it takes; one stuck on a model or tool that hangs is.
type watchdog struct {
	clock   clock.Clock
	timeout time.Duration
	last    atomic.Int64 // unix nanoseconds of the last progress
	cancel  context.CancelCauseFunc
	done    chan struct{}
}

// newWatchdog returns ctx wrapped so that it ends after timeout without
// progress, and the watchdog that is told of progress. Stop must be
// called when the run ends. A timeout of zero or less never fires.
func newWatchdog(ctx context.Context, c clock.Clock, timeout time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{clock: c, timeout: timeout, cancel: cancel, done: make(chan struct{})}
	w.last.Store(c.Now().UnixNano())
	if timeout > 0 {
		go w.watch(ctx)
	}
	return ctx, w
}

// Event records progress; it makes the watchdog an agent.Sink.
func (w *watchdog) Event(agent.Event) { w.last.Store(w.clock.Now().UnixNano()) }

func (w *watchdog) watch(ctx context.Context) {
	t := w.clock.NewTimer(w.timeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.done:
			return
		case <-t.C():
		}
		idle := w.clock.Now().Sub(time.Unix(0, w.last.Load()))
		if idle >= w.timeout {
			w.cancel(errInactive{w.timeout})
			return
		}
		t.Reset(w.timeout - idle)
	}
}

// Stop ends the watchdog and releases its context.
func (w *watchdog) Stop() {
	close(w.done)
	w.cancel(context.Canceled)
}
