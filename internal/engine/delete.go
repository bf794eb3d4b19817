package engine

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

// DeleteSession deletes a session and its messages unless a turn is
// running in it, in this process or another: that turn would go on
// writing to a session that is gone. A busy session gives a *BusyError at
// once; nothing waits. While the session is being deleted no turn can
// start in it.
func (e *Engine) DeleteSession(ctx context.Context, id string) error {
	unlock, ok := e.tryLock(id)
	if !ok {
		return &BusyError{SessionID: id, Holder: e.holder}
	}
	defer unlock()
	if store, ok := e.opt.Store.(session.Leaser); ok {
		req := session.LeaseRequest{SessionID: id, Holder: e.holder, Now: e.opt.Clock.Now(), TTL: leaseTTL}
		got, err := store.AcquireLease(ctx, req)
		if err == nil && !got.Held && e.gone(got.Holder) {
			req.Replace = got.Holder
			got, err = store.AcquireLease(ctx, req)
		}
		if err != nil {
			return fmt.Errorf("taking the lease of session %s: %w", id, err)
		}
		if !got.Held {
			return &BusyError{SessionID: id, Holder: got.Holder, Until: got.Until}
		}
		// The lease is given up whether or not the delete went through.
		defer store.ReleaseLease(context.WithoutCancel(ctx), id, e.holder)
	}
	return e.opt.Store.Delete(ctx, id)
}

// tryLock takes a session's turn lock if no turn holds it or waits for
// it, and reports whether it did.
func (e *Engine) tryLock(id string) (unlock func(), ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, held := e.locks[id]; held {
		return nil, false
	}
	l := &turnLock{ch: make(chan struct{}, 1), refs: 1}
	l.ch <- struct{}{}
	e.locks[id] = l
	return func() {
		<-l.ch
		e.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(e.locks, id)
		}
		e.mu.Unlock()
	}, true
}
