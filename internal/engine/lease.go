package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// The turns of a session run one at a time: within a process the turn
// lock sees to it (lock), across processes the session's lease in the
// store (session.Leaser). A turn takes the lease after the lock, renews
// it while it runs and releases it when it ends; a second process asking
// meanwhile waits, up to Options.LeaseWait, and then gives up with a
// *BusyError naming the process that holds it. A holder that died stops
// renewing and loses the lease when it expires, or at once when it ran on
// this host and its process is gone.

const (
	// leaseTTL is how long a lease lasts unrenewed. The holder renews it
	// every third of that, so one missed renewal (a stalled disk) does not
	// lose it.
	leaseTTL = 30 * time.Second
	// leasePoll is how often a waiting turn asks for the lease again.
	leasePoll = 250 * time.Millisecond
	// DefaultLeaseWait is how long a turn waits for another process's
	// turn in its session when Options.LeaseWait is zero.
	DefaultLeaseWait = 30 * time.Second
)

// BusyError is Turn's error when another process is running a turn in the
// session and did not finish within Options.LeaseWait.
type BusyError struct {
	SessionID string
	// Holder names the process running the turn ("host/pid") and Until
	// is when its lease lapses unless it renews it.
	Holder string
	Until  time.Time
	// Waited is how long this turn waited for it.
	Waited time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s is busy: hermes process %s is running a turn in it (waited %s); "+
		"try again when that turn has finished, or start a new session", e.SessionID, e.Holder, e.Waited.Round(time.Millisecond))
}

// lostError ends a turn whose lease another process took over, because
// this one did not renew it in time (it was suspended, say): two
// processes must never write one session at once.
type lostError struct {
	sessionID, holder string
}

func (e *lostError) Error() string {
	return fmt.Sprintf("session %s was taken over by hermes process %s while this turn ran (its lease was not renewed in time); the turn was stopped", e.sessionID, e.holder)
}

// leases are the session leases one turn holds: the session it started
// in and any it continues in after a compression.
type leases struct {
	e      *Engine
	store  session.Leaser
	cancel context.CancelCauseFunc
	stop   chan struct{}
	done   chan struct{}

	mu  sync.Mutex
	ids []string
}

// lease takes the lease of session id for a turn, waiting while another
// process holds it, and keeps it renewed until release. The returned
// context is ctx, ended with a *lostError if the lease is lost. With a
// store that keeps no leases it only returns ctx.
func (e *Engine) lease(ctx context.Context, id string, waiting func(holder string)) (context.Context, *leases, error) {
	l := &leases{e: e}
	store, ok := e.opt.Store.(session.Leaser)
	if !ok {
		return ctx, l, nil
	}
	l.store = store
	if err := l.take(ctx, id, waiting); err != nil {
		return nil, nil, err
	}
	ctx, l.cancel = context.WithCancelCause(ctx)
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.renew()
	return ctx, l, nil
}

// take acquires the lease of session id, waiting while another process
// holds it, at most Options.LeaseWait.
func (l *leases) take(ctx context.Context, id string, waiting func(holder string)) error {
	c := l.e.opt.Clock
	start := c.Now()
	replace := ""
	for told := false; ; {
		got, err := l.store.AcquireLease(ctx, session.LeaseRequest{SessionID: id, Holder: l.e.holder, Now: c.Now(), TTL: leaseTTL, Replace: replace})
		if err != nil {
			return fmt.Errorf("taking the lease of session %s: %w", id, err)
		}
		if got.Held {
			l.mu.Lock()
			l.ids = append(l.ids, id)
			l.mu.Unlock()
			return nil
		}
		if got.Holder != replace && l.e.gone(got.Holder) {
			l.e.opt.Logger.Info("session lease taken over from a process that is gone",
				slog.String("session_id", id), slog.String("holder", got.Holder))
			replace = got.Holder
			continue
		}
		waited := c.Now().Sub(start)
		if wait := l.e.opt.LeaseWait; wait < 0 || waited >= wait {
			return &BusyError{SessionID: id, Holder: got.Holder, Until: got.Until, Waited: waited}
		}
		if !told && waiting != nil {
			waiting(got.Holder)
			told = true
		}
		if err := c.Sleep(ctx, leasePoll); err != nil {
			return fmt.Errorf("waiting for session %s, where hermes process %s is running a turn: %w", id, got.Holder, err)
		}
	}
}

// add takes the lease of a session the turn continues in (a compressed
// conversation's child, which nobody else should know yet) without
// waiting.
func (l *leases) add(ctx context.Context, id string) error {
	if l == nil || l.store == nil {
		return nil
	}
	got, err := l.store.AcquireLease(ctx, session.LeaseRequest{SessionID: id, Holder: l.e.holder, Now: l.e.opt.Clock.Now(), TTL: leaseTTL})
	if err != nil {
		return fmt.Errorf("taking the lease of session %s: %w", id, err)
	}
	if !got.Held {
		return &BusyError{SessionID: id, Holder: got.Holder, Until: got.Until}
	}
	l.mu.Lock()
	l.ids = append(l.ids, id)
	l.mu.Unlock()
	return nil
}

// renew renews the leases every third of their TTL until release. A
// lease found in another's hands ends the turn.
func (l *leases) renew() {
	defer close(l.done)
	c := l.e.opt.Clock
	t := c.NewTimer(leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C():
		}
		l.mu.Lock()
		ids := slices.Clone(l.ids)
		l.mu.Unlock()
		for _, id := range ids {
			got, err := l.store.AcquireLease(context.Background(), session.LeaseRequest{SessionID: id, Holder: l.e.holder, Now: c.Now(), TTL: leaseTTL})
			switch {
			case err != nil:
				l.e.opt.Logger.Warn("session lease not renewed; trying again", slog.String("session_id", id), slog.String("error", err.Error()))
			case !got.Held:
				lost := &lostError{sessionID: id, holder: got.Holder}
				l.e.opt.Logger.Error(lost.Error(), slog.String("session_id", id))
				l.cancel(lost)
				return
			}
		}
		t.Reset(leaseTTL / 3)
	}
}

// release stops the renewals and gives the leases up, so that a process
// waiting for the session goes on at once.
func (l *leases) release() {
	if l.store == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.cancel(nil)
	for _, id := range l.ids {
		if err := l.store.ReleaseLease(context.Background(), id, l.e.holder); err != nil {
			l.e.opt.Logger.Warn("session lease not released; it expires by itself", slog.String("session_id", id), slog.String("error", err.Error()))
		}
	}
}

// lostCause is the *lostError that ended ctx, if one did.
func lostCause(ctx context.Context) error {
	var lost *lostError
	if errors.As(context.Cause(ctx), &lost) {
		return lost
	}
	return nil
}

// hold takes session id's turn lock and then its lease, as a turn does,
// for work on its stored messages outside a turn (/compress, /undo): no
// turn runs in the session meanwhile, here or in another process.
// release gives both back.
func (e *Engine) hold(ctx context.Context, id string) (context.Context, *leases, func(), error) {
	unlock, err := e.lock(ctx, id)
	if err != nil {
		return ctx, nil, nil, err
	}
	ctx, lease, err := e.lease(ctx, id, nil)
	if err != nil {
		unlock()
		return ctx, nil, nil, err
	}
	return ctx, lease, func() { lease.release(); unlock() }, nil
}
