package slack

import (
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// holds keeps, per channel, the time until which Slack asked hermes to
// wait. Slack limits messages per channel, but the gateway queues per
// thread, so without it a second thread of a limited channel would go on
// calling and earn more 429s.
type holds struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// check returns a RateLimited error while channel is held at now.
func (h *holds) check(channel string, now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	until, ok := h.until[channel]
	if !ok {
		return nil
	}
	if !now.Before(until) {
		delete(h.until, channel)
		return nil
	}
	wait := until.Sub(now)
	return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("slack: channel %s is rate limited for another %s", channel, wait.Round(time.Millisecond))}
}

// note holds channel when err is a rate limit, and returns err.
func (h *holds) note(channel string, now time.Time, err error) error {
	se, ok := err.(*gateway.SendError)
	if !ok || se.Kind != gateway.RateLimited || se.RetryAfter <= 0 {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until == nil {
		h.until = map[string]time.Time{}
	}
	for c, t := range h.until { // the expired ones go, so the map stays small
		if !now.Before(t) {
			delete(h.until, c)
		}
	}
	if until := now.Add(se.RetryAfter); until.After(h.until[channel]) {
		h.until[channel] = until
	}
	return err
}
