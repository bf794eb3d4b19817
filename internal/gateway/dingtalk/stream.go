package dingtalk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway"
)

// BotTopic is the Stream topic robot messages arrive on.
const BotTopic = "/v1.0/im/bot/messages/get"

// Stream connection timing.
const (
	// minBackoff and maxBackoff bound the wait before reconnecting after
	// a failure; a connection DingTalk asked to move is reopened at once.
	minBackoff = time.Second
	maxBackoff = time.Minute
	// pingEvery is how long a quiet connection goes before hermes pings
	// it, and pingWait how long the pong may take before the connection
	// is taken for dead (as DingTalk's own SDK does).
	pingEvery = 2 * time.Minute
	pingWait  = 5 * time.Second
	// maxFrameBytes bounds one frame; robot messages are a few KB.
	maxFrameBytes = 1 << 20
)

// Frame is one Stream frame as DingTalk sends it.
type Frame struct {
	SpecVersion string `json:"specVersion"`
	// Type is SYSTEM, EVENT or CALLBACK.
	Type    string            `json:"type"`
	Headers map[string]string `json:"headers"`
	// Data is the payload, itself JSON in a string.
	Data string `json:"data"`
}

// Ack is hermes's answer to a frame: every frame gets one, by its
// messageId, or DingTalk delivers it again.
type Ack struct {
	Code    int               `json:"code"`
	Headers map[string]string `json:"headers"`
	Message string            `json:"message"`
	Data    string            `json:"data"`
}

// errMoved is a connection DingTalk asked to move (SYSTEM disconnect).
var errMoved = errors.New("dingtalk: the server asked to reconnect")

// receiveStream is Receive in stream mode: it opens a connection, takes
// frames until it ends, and opens another, waiting longer after each
// failure in a row, until ctx ends or DingTalk refuses the credentials.
func (a *Adapter) receiveStream(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	backoff := time.Duration(0)
	for {
		up, err := a.stream(ctx, deliver)
		if ctx.Err() != nil {
			return nil
		}
		var ae *apiError
		if errors.As(err, &ae) && (ae.Status == 400 || ae.Status == 401 || ae.Status == 403) {
			return fmt.Errorf("dingtalk: DingTalk refused to open a Stream connection (%d %s); check client_id and client_secret, and that the app's robot uses Stream mode", ae.Status, ae.Code)
		}
		if errors.Is(err, errMoved) {
			a.log.Info("dingtalk: reconnecting as the server asked")
			backoff = 0
			continue
		}
		if up {
			backoff = 0
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("dingtalk: the Stream connection ended; reconnecting", "error", err, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
}

// open asks for a Stream endpoint and returns the address to dial, with
// its one-time ticket.
func (a *Adapter) open(ctx context.Context) (string, error) {
	var out struct {
		Endpoint string `json:"endpoint"`
		Ticket   string `json:"ticket"`
	}
	err := a.post(ctx, "gateway/connections/open", "/v1.0/gateway/connections/open", false, map[string]any{
		"clientId":      a.id,
		"clientSecret":  a.secret,
		"subscriptions": []map[string]string{{"type": "CALLBACK", "topic": BotTopic}},
		"ua":            "hermes",
	}, &out)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(out.Endpoint)
	if err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || out.Ticket == "" {
		return "", fmt.Errorf("dingtalk: gateway/connections/open gave no WebSocket endpoint and ticket (endpoint %q)", out.Endpoint)
	}
	q := u.Query()
	q.Set("ticket", out.Ticket)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// stream runs one connection until it ends; up says whether it was
// established, so a failure after a good connection waits little.
func (a *Adapter) stream(ctx context.Context, deliver func(context.Context, gateway.Event) error) (up bool, err error) {
	target, err := a.open(ctx)
	if err != nil {
		return false, err
	}
	conn, _, err := websocket.Dial(ctx, target, &websocket.DialOptions{HTTPClient: a.client})
	if err != nil {
		// The address holds the ticket: say where, not what.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		host := ""
		if u, perr := url.Parse(target); perr == nil {
			host = u.Host
		}
		return false, fmt.Errorf("dingtalk: connecting the Stream WebSocket at %s failed: %v", host, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxFrameBytes)
	a.log.Info("dingtalk: Stream connected")
	heard, stop := a.keepalive(ctx, conn)
	defer stop()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return true, fmt.Errorf("dingtalk: the Stream connection dropped: %w", err)
		}
		heard()
		var f Frame
		if err := json.Unmarshal(data, &f); err != nil {
			a.log.Warn("dingtalk: a Stream frame is not JSON; ignored", "error", err)
			continue
		}
		ack, moved := a.frame(ctx, f, deliver)
		out, _ := json.Marshal(ack)
		if err := conn.Write(ctx, websocket.MessageText, out); err != nil {
			return true, fmt.Errorf("dingtalk: acknowledging a frame failed: %w", err)
		}
		if moved {
			return true, errMoved
		}
	}
}

// keepalive pings the connection when it has been quiet for pingEvery,
// and closes it when the pong does not come within pingWait, so a link
// that died without a word is noticed. heard is called for every frame
// read; stop ends the pings.
func (a *Adapter) keepalive(ctx context.Context, conn *websocket.Conn) (heard, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	last := a.clock.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := a.clock.NewTimer(pingEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C():
				mu.Lock()
				quiet := now.Sub(last)
				mu.Unlock()
				if quiet < pingEvery {
					t.Reset(pingEvery - quiet)
					continue
				}
				pctx, pcancel := context.WithTimeout(ctx, pingWait)
				err := conn.Ping(pctx)
				pcancel()
				if err != nil {
					if ctx.Err() == nil {
						a.log.Warn("dingtalk: the Stream connection did not answer a ping; reconnecting")
					}
					conn.CloseNow()
					return
				}
				mu.Lock()
				last = a.clock.Now()
				mu.Unlock()
				t.Reset(pingEvery)
			}
		}
	}()
	heard = func() {
		mu.Lock()
		last = a.clock.Now()
		mu.Unlock()
	}
	return heard, func() { cancel(); <-done }
}

// frame handles one frame and returns its ack; moved is set for a
// SYSTEM disconnect. A robot message is acked once deliver took it, and
// with 500 when it could not, so DingTalk delivers it again.
func (a *Adapter) frame(ctx context.Context, f Frame, deliver func(context.Context, gateway.Event) error) (ack Ack, moved bool) {
	topic, id := f.Headers["topic"], f.Headers["messageId"]
	ack = Ack{Code: 200, Message: "OK", Headers: map[string]string{"contentType": "application/json", "messageId": id}}
	switch {
	case f.Type == "SYSTEM" && topic == "ping":
		ack.Data = f.Data
	case f.Type == "SYSTEM" && topic == "disconnect":
		return ack, true
	case f.Type == "SYSTEM":
		// Other system notices need nothing but the ack.
	case f.Type == "CALLBACK" && topic == BotTopic:
		ack.Data = `{"response":null}`
		ev, ok := a.event([]byte(f.Data))
		if !ok {
			break
		}
		if err := deliver(ctx, ev); err != nil {
			a.log.Warn("dingtalk: a message was not taken; DingTalk will deliver it again", "msg_id", ev.ID, "error", err)
			ack.Code, ack.Message = 500, "not taken"
		}
	default:
		ack.Code, ack.Message = 404, "no handler for "+f.Type+" "+topic
	}
	return ack, false
}
