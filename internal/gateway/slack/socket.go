package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The backoff after a failed connection doubles from minBackoff to
// maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// healthy is how long a connection must have lasted for its drop to be
// answered by reconnecting at once, without backoff.
const healthy = 30 * time.Second

// pingEvery is how often hermes pings the socket by default, and
// pingTimeout how long the pong may take: a socket that does not answer is dead (a
// half-open TCP connection shows no error) and is replaced.
const (
	pingEvery   = 30 * time.Second
	pingTimeout = 10 * time.Second
)

// frame is one Socket Mode message: hello, disconnect, or an envelope.
type frame struct {
	Type         string          `json:"type"`
	EnvelopeID   string          `json:"envelope_id"`
	Payload      json.RawMessage `json:"payload"`
	Reason       string          `json:"reason"`
	RetryAttempt int             `json:"retry_attempt"`
}

// Receive connects and hands every inbound event to deliver until ctx
// ends. In Socket Mode it opens a connection with apps.connections.open,
// acknowledges every envelope by its envelope_id once deliver has taken
// its event (an envelope deliver refused is left unacknowledged, so Slack
// sends it again), opens a new connection when Slack asks (disconnect)
// before it closes the old one, and reconnects with backoff when the
// socket drops. With the Events API it serves what Slack posts to
// WebhookHandler.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	if a.appToken == "" {
		return a.receiveHTTP(ctx, deliver)
	}
	if err := a.whoAmI(ctx); err != nil {
		return err
	}
	var old *websocket.Conn
	backoff := time.Duration(0)
	for {
		conn, err := a.connect(ctx)
		if old != nil {
			old.Close(websocket.StatusNormalClosure, "refreshed")
			old = nil
		}
		if ctx.Err() != nil {
			if conn != nil {
				conn.CloseNow()
			}
			return nil
		}
		if err != nil {
			var fatal *fatalError
			if errors.As(err, &fatal) {
				return err
			}
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			a.log.Warn("slack: connecting to Socket Mode failed", "err", err.Error(), "retry_in", backoff)
			if a.clock.Sleep(ctx, backoff) != nil {
				return nil
			}
			continue
		}
		start := a.clock.Now()
		refresh, hello, err := a.serve(ctx, conn, deliver)
		if ctx.Err() != nil {
			conn.Close(websocket.StatusNormalClosure, "hermes stopping")
			return nil
		}
		if refresh {
			old = conn
			continue
		}
		conn.CloseNow()
		if hello && a.clock.Now().Sub(start) >= healthy {
			// A connection that worked for a while is replaced at
			// once; one that never said hello, or drops as soon as it
			// is open, waits, longer each time, like a failed dial.
			a.log.Warn("slack: the Socket Mode connection dropped; reconnecting", "err", fmt.Sprint(err))
			backoff = 0
			continue
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("slack: the Socket Mode connection dropped; reconnecting", "err", fmt.Sprint(err), "hello", hello, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
}

// fatalError is a failure no retry cures: a token Slack refuses.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// refused reports the Web API errors that mean the token is wrong.
func refused(err error) (string, bool) {
	var ae *apiError
	if !errors.As(err, &ae) {
		return "", false
	}
	switch ae.Code {
	case "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired",
		"not_allowed_token_type", "missing_scope", "no_permission", "invalid_token":
		return ae.Code, true
	}
	return "", false
}

// whoAmI learns the bot's user id with auth.test, retrying
// until Slack answers; a refused bot token ends it.
func (a *Adapter) whoAmI(ctx context.Context) error {
	backoff := time.Duration(0)
	for {
		var out struct {
			UserID string `json:"user_id"`
		}
		err := a.call(ctx, "auth.test", a.botToken, map[string]any{}, &out)
		if err == nil {
			a.mu.Lock()
			a.botUser = out.UserID
			a.mu.Unlock()
			return nil
		}
		if code, ok := refused(err); ok {
			return &fatalError{fmt.Sprintf("slack: Slack refused bot_token (%s); give the Bot User OAuth Token (xoxb-…) of the installed app", code)}
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("slack: auth.test failed", "err", err.Error(), "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
}

// connect asks for a Socket Mode URL (single use) and dials it.
func (a *Adapter) connect(ctx context.Context) (*websocket.Conn, error) {
	var out struct {
		URL string `json:"url"`
	}
	if err := a.call(ctx, "apps.connections.open", a.appToken, map[string]any{}, &out); err != nil {
		if code, ok := refused(err); ok {
			return nil, &fatalError{fmt.Sprintf("slack: Slack refused app_token (%s); give an app-level token (xapp-…) with connections:write, and turn Socket Mode on in the app's settings", code)}
		}
		return nil, err
	}
	dialCtx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	conn, _, err := websocket.Dial(dialCtx, out.URL, &websocket.DialOptions{HTTPClient: a.client})
	if err != nil {
		// The URL holds a ticket: it is not shown.
		return nil, fmt.Errorf("slack: dialing the Socket Mode URL: %s", a.redact(strings.ReplaceAll(err.Error(), out.URL, "<socket url>")))
	}
	conn.SetReadLimit(maxBody)
	return conn, nil
}

// serve reads one connection until it drops, ctx ends or Slack asks for
// a new one (refresh). hello reports whether Slack said hello on it.
func (a *Adapter) serve(ctx context.Context, conn *websocket.Conn, deliver func(context.Context, gateway.Event) error) (refresh, hello bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if a.ping > 0 {
		go a.pinger(ctx, conn)
	}
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return false, hello, err
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			a.log.Warn("slack: a Socket Mode frame that is not JSON was skipped", "bytes", len(data))
			continue
		}
		switch f.Type {
		case "hello":
			hello = true
			a.log.Info("slack: connected by Socket Mode")
			continue
		case "disconnect":
			a.log.Info("slack: Slack asked for a new connection", "reason", f.Reason)
			return true, hello, nil
		}
		if f.EnvelopeID == "" {
			continue
		}
		if err := a.envelope(ctx, f, deliver); err != nil {
			a.log.Warn("slack: an event was not taken; Slack will send it again", "envelope", f.EnvelopeID, "err", err.Error())
			continue
		}
		ack, _ := json.Marshal(map[string]string{"envelope_id": f.EnvelopeID})
		if err := conn.Write(ctx, websocket.MessageText, ack); err != nil {
			return false, hello, err
		}
	}
}

// envelope hands the event of one envelope to deliver; envelopes that
// carry nothing for the gateway are taken as they are.
func (a *Adapter) envelope(ctx context.Context, f frame, deliver func(context.Context, gateway.Event) error) error {
	var (
		ev gateway.Event
		ok bool
	)
	switch f.Type {
	case "events_api":
		var cb callback
		if json.Unmarshal(f.Payload, &cb) == nil && cb.Type == "event_callback" {
			ev, ok = a.messageEvent(cb.Event)
		}
	case "interactive":
		ev, ok = a.buttonEvent(f.Payload)
	}
	if !ok {
		return nil
	}
	return deliver(ctx, ev)
}

// pinger pings conn every a.ping until ctx ends, and closes it when a
// pong does not come in time, which ends serve's read.
func (a *Adapter) pinger(ctx context.Context, conn *websocket.Conn) {
	t := a.clock.NewTimer(a.ping)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := conn.Ping(pctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				a.log.Warn("slack: the socket did not answer a ping; reconnecting")
				conn.CloseNow()
			}
			return
		}
		t.Reset(a.ping)
	}
}
