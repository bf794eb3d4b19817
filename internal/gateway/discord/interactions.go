package discord

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// A button press arrives as an interaction, which Discord wants answered
// within three seconds or the user sees "This interaction failed". Its
// token, which lets whoever holds it answer for 15 minutes, stays here,
// by interaction id, and never goes into the gateway's Event.

// pressTTL is how long an interaction's token is valid.
const pressTTL = 15 * time.Minute

// maxPresses bounds the tokens kept at once.
const maxPresses = 4096

// presses keeps the tokens of the interactions not yet answered.
type presses struct {
	clock clock.Clock
	mu    sync.Mutex
	byID  map[string]press
}

type press struct {
	token, appID string
	at           time.Time
}

func newPresses(c clock.Clock) *presses { return &presses{clock: c, byID: map[string]press{}} }

// put keeps an interaction's token, forgetting those past their TTL.
func (p *presses) put(id, token, appID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	if len(p.byID) >= maxPresses {
		for k, v := range p.byID {
			if now.Sub(v.at) > pressTTL {
				delete(p.byID, k)
			}
		}
		if len(p.byID) >= maxPresses {
			clear(p.byID) // a flood of presses: the oldest are lost with the rest
		}
	}
	p.byID[id] = press{token: token, appID: appID, at: now}
}

// take returns and forgets an interaction's token.
func (p *presses) take(id string) (press, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.byID[id]
	delete(p.byID, id)
	if ok && p.clock.Now().Sub(v.at) > pressTTL {
		return press{}, false
	}
	return v, ok
}

// Answer acknowledges a button press with a deferred update (type 6),
// which leaves the message to the edit the gateway makes next, and shows
// text to the presser alone in an ephemeral follow-up.
func (a *Adapter) Answer(ctx context.Context, ev gateway.Event, text string) error {
	pr, ok := a.presses.take(ev.Raw)
	if ev.Raw == "" || !ok {
		return fmt.Errorf("discord: the event %q is not a button press waiting for an answer (or its 15 minutes are over)", ev.ID)
	}
	if err := checkID("interaction id", ev.Raw); err != nil {
		return err
	}
	cb := request{method: http.MethodPost, path: "/interactions/" + ev.Raw + "/" + pr.token + "/callback",
		route: "POST /interactions/{id}/{token}/callback", body: map[string]any{"type": 6}, interaction: true}
	if err := a.call(ctx, cb, nil); err != nil {
		return err
	}
	if text == "" || pr.appID == "" {
		return nil
	}
	follow := request{method: http.MethodPost, path: "/webhooks/" + pr.appID + "/" + pr.token,
		route: "POST /webhooks/{application}/{token}", interaction: true,
		body: map[string]any{"content": Render(clip(text, 1900)), "flags": 64, "allowed_mentions": noMentions()}}
	return a.call(ctx, follow, nil)
}

// clip cuts s to at most n code points, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
