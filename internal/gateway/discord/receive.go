package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The backoff after a connection that failed doubles from minBackoff to
// maxBackoff; a connection that had come up is resumed at once the first
// time it drops.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// session is what a Resume needs: the session's id, where to resume it,
// and the sequence number of the last event taken (-1 for none).
type session struct {
	id        string
	resumeURL string
	seq       int64
}

// Receive connects to the Gateway and hands every message and button
// press to deliver, until ctx ends or Discord refuses the bot for good
// (a bad token, intents not enabled, or a close code that must not be
// retried). A dropped connection, a missed heartbeat ACK and a Reconnect
// are resumed where they stopped, so the events in between are replayed;
// an event deliver refused is replayed too, by resuming from before it.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	sess := a.loadSession(ctx)
	failures := 0
	for ctx.Err() == nil {
		target := sess.resumeURL
		if sess.id == "" || target == "" {
			u, err := a.discover(ctx)
			if err != nil {
				if fatal := (*closeError)(nil); errors.As(err, &fatal) {
					return err
				}
				failures++
				if a.pause(ctx, failures, "discord: asking for the Gateway's address failed", err) != nil {
					break
				}
				continue
			}
			target = u
		}
		up, err := a.connect(ctx, target, &sess, deliver)
		if ctx.Err() != nil {
			break
		}
		var ce *closeError
		if errors.As(err, &ce) && ce.fatal() {
			a.log.Error("discord: the Gateway refused the bot for good", "close_code", ce.code, "err", ce.Error())
			return ce
		}
		if errors.Is(err, errNewSession) {
			// Identify afresh after 1 to 5 seconds, as Discord asks.
			sess = session{seq: -1}
			a.saveSession(ctx, sess)
			wait := time.Second + time.Duration(a.jitter()*float64(4*time.Second))
			a.log.Warn("discord: the session cannot be resumed; identifying afresh", "err", err, "retry_in", wait)
			if a.clock.Sleep(ctx, wait) != nil {
				break
			}
			continue
		}
		switch {
		case errors.Is(err, errNotTaken):
			failures = max(failures, 1) // the gateway could not take it: not at once
		case up:
			failures = 0
		}
		if a.pause(ctx, failures, "discord: the Gateway connection ended; resuming", err) != nil {
			break
		}
		failures++
	}
	// hermes is stopping: the connection was closed normally, which ends
	// the session on Discord's side, so there is nothing to resume.
	a.saveSession(ctx, session{seq: -1})
	return nil
}

// pause logs why and waits the backoff for the nth failure in a row (no
// wait for the first).
func (a *Adapter) pause(ctx context.Context, n int, why string, err error) error {
	wait := time.Duration(0)
	if n > 0 {
		wait = min(minBackoff<<min(n-1, 10), maxBackoff)
	}
	a.log.Warn(why, "err", err, "retry_in", wait)
	if wait == 0 {
		return ctx.Err()
	}
	return a.clock.Sleep(ctx, wait)
}

// discover returns the Gateway's address for a new connection: the one
// configured, or what GET /gateway/bot says. Asking also learns how many
// identifies are left today (session_start_limit); when none are, it
// waits for the reset instead of spending the bot's daily budget on
// connections Discord would refuse.
func (a *Adapter) discover(ctx context.Context) (string, error) {
	if a.gatewayURL != "" {
		return a.gatewayURL, nil
	}
	var out struct {
		URL   string `json:"url"`
		Limit *struct {
			Remaining  int     `json:"remaining"`
			ResetAfter float64 `json:"reset_after"`
		} `json:"session_start_limit"`
	}
	err := a.call(ctx, request{method: http.MethodGet, path: "/gateway/bot", route: "GET /gateway/bot"}, &out)
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
		return "", &closeError{code: 4004, reason: "GET /gateway/bot answered 401 Unauthorized"}
	}
	if err != nil {
		return "", err
	}
	if u, perr := url.Parse(out.URL); perr != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
		return "", fmt.Errorf("discord: GET /gateway/bot gave %q, which is not a ws or wss URL", out.URL)
	}
	if l := out.Limit; l != nil && l.Remaining <= 0 {
		wait := time.Duration(l.ResetAfter * float64(time.Millisecond))
		a.log.Warn("discord: no identifies left today (session_start_limit); waiting for the reset", "retry_in", wait)
		if err := a.clock.Sleep(ctx, wait); err != nil {
			return "", err
		}
	}
	return out.URL, nil
}

// gatewayAddress adds the version and encoding hermes speaks to a
// Gateway URL.
func gatewayAddress(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("discord: the Gateway URL %q: %w", raw, err)
	}
	q := u.Query()
	q.Set("v", "10")
	q.Set("encoding", "json")
	q.Del("compress")
	u.RawQuery = q.Encode()
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), nil
}

// closeError is a connection Discord closed with a code of its own.
type closeError struct {
	code   int
	reason string
}

// fatal reports whether the code is one Discord says not to reconnect
// after: the bot's configuration must change first.
func (e *closeError) fatal() bool {
	switch e.code {
	case 4004, 4010, 4011, 4012, 4013, 4014:
		return true
	}
	return false
}

func (e *closeError) Error() string {
	what := ""
	switch e.code {
	case 4004:
		what = "authentication failed: Discord refused the token; check gateway.discord.token (Bot → Reset Token in the developer portal)"
	case 4010:
		what = "invalid shard"
	case 4011:
		what = "sharding required: the bot is in too many guilds for one connection, and hermes does not shard"
	case 4012:
		what = "invalid API version"
	case 4013:
		what = "invalid intents"
	case 4014:
		what = "disallowed intents: switch on Message Content Intent under Bot → Privileged Gateway Intents in the developer portal"
	default:
		what = "closed by Discord"
	}
	if e.reason != "" {
		return fmt.Sprintf("discord: Gateway close %d, %s (%s)", e.code, what, e.reason)
	}
	return fmt.Sprintf("discord: Gateway close %d, %s", e.code, what)
}

// errNewSession says the session is gone: the next connection identifies
// afresh instead of resuming.
var errNewSession = errors.New("discord: the session is no longer valid")

// closedBy returns the error of a connection that ended with err: a
// closeError for a close code of Discord's, errNewSession for the codes
// that end the session but allow a new one.
func closedBy(err error) error {
	code := int(websocket.CloseStatus(err))
	switch {
	case code == 4007 || code == 4009:
		return fmt.Errorf("%w (close %d)", errNewSession, code)
	case code >= 4000:
		var ce websocket.CloseError
		errors.As(err, &ce)
		return &closeError{code: code, reason: ce.Reason}
	}
	return err
}

// decode reads one payload.
func decode(data []byte) (payload, error) {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("discord: a Gateway message is not JSON: %w", err)
	}
	return p, nil
}
