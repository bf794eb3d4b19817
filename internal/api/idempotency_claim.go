package api

import (
	"context"
	"encoding/json"
	"time"
)

// claimKey is the context key of a request's claim.
type claimKey struct{}

// claim is a request this replica took by its Idempotency-Key.
type claim struct {
	s                   *Server
	caller, key, holder string
	// rec is the request as claimed: on a takeover, the session and
	// message the dead attempt began from.
	rec Request
}

// keep renews the claim until the returned stop is called.
func (c *claim) keep(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		clk := c.s.opt.Clock
		for clk.Sleep(ctx, requestLease/3) == nil {
			held, err := c.s.opt.Requests.Renew(ctx, c.caller, c.key, c.holder, clk.Now().Add(requestLease))
			if err != nil && ctx.Err() == nil {
				c.s.opt.Logger.Warn("api: idempotency claim not renewed", "error", err)
			}
			if err == nil && !held {
				c.s.opt.Logger.Warn("api: idempotency claim lost to another replica", "key", c.key)
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// ready runs once the turn holds its session, before it stores
// anything: a takeover first rewinds what the dead attempt stored in the
// same session, then the session and its last message are recorded for
// the next takeover.
func (c *claim) ready(ctx context.Context, sessionID string) error {
	switch {
	case c.rec.SessionID == sessionID && c.rec.BaseID >= 0 && c.s.opt.Rewind != nil:
		if err := c.s.opt.Rewind(ctx, sessionID, c.rec.BaseID); err != nil {
			return err
		}
	case c.rec.SessionID != "" && c.rec.SessionID != sessionID && c.s.opt.Conversations != nil:
		// The request asked for a new session and the dead attempt made
		// one, holding nothing but its own partial turn, which nobody
		// was told of: it goes, so the answer lives in one session only.
		if err := c.s.opt.Conversations.Delete(ctx, c.rec.SessionID); err != nil {
			c.s.opt.Logger.Warn("api: the session of a request's dead attempt was not deleted",
				"session_id", c.rec.SessionID, "error", err)
		}
	}
	base := int64(0)
	if c.s.opt.LastMessageID != nil {
		var err error
		if base, err = c.s.opt.LastMessageID(ctx, sessionID); err != nil {
			return err
		}
	}
	c.rec.SessionID, c.rec.BaseID = sessionID, base
	return c.s.opt.Requests.Begin(ctx, c.caller, c.key, c.holder, sessionID, base)
}

// settle stores a successful answer for retries, or releases the claim
// so a retry runs the request again.
func (c *claim) settle(cw *captureWriter) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cw.status >= 200 && cw.status < 300 {
		answer, err := json.Marshal(storedAnswer{Session: cw.Header().Get(SessionHeader),
			ContentType: cw.Header().Get("Content-Type"), Body: cw.body.Bytes()})
		if err == nil {
			err = c.s.opt.Requests.Finish(ctx, c.caller, c.key, c.holder, cw.status, answer)
		}
		if err != nil {
			c.s.opt.Logger.Error("api: answer of an idempotent request not stored", "key", c.key, "error", err)
		}
		return
	}
	if err := c.s.opt.Requests.Release(ctx, c.caller, c.key, c.holder); err != nil {
		c.s.opt.Logger.Warn("api: idempotency claim not released", "key", c.key, "error", err)
	}
}
