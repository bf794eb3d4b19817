package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway"
)

// helloTimeout bounds the wait for Hello after the connection opens.
const helloTimeout = 30 * time.Second

// maxFrame bounds a Gateway message; READY of a bot in many guilds is
// the largest.
const maxFrame = 16 << 20

// conn is one Gateway connection.
type conn struct {
	a    *Adapter
	ws   *websocket.Conn
	sess *session
	wmu  sync.Mutex
	// acked is set when the last heartbeat was acknowledged; zombie when
	// one was not, and the connection was closed for it.
	acked  atomic.Bool
	zombie atomic.Bool
	seq    atomic.Int64
}

// errZombie is a connection closed because a heartbeat was not
// acknowledged before the next was due.
var errZombie = errors.New("discord: no heartbeat ACK before the next heartbeat; the connection is taken for dead")

// errNotTaken is an event deliver refused: the connection is resumed from
// before it, so Discord replays it.
var errNotTaken = errors.New("discord: an event was not taken")

// errReconnect is Discord asking for a reconnect and resume (op 7, or op 9
// with a resumable session).
var errReconnect = errors.New("discord: the Gateway asked to reconnect")

// connect opens a connection to target, identifies (or resumes sess) and
// hands the events to deliver until the connection ends. up reports
// whether it came up (READY or RESUMED).
func (a *Adapter) connect(ctx context.Context, target string, sess *session, deliver func(context.Context, gateway.Event) error) (up bool, err error) {
	addr, err := gatewayAddress(target)
	if err != nil {
		return false, err
	}
	dctx, cancel := context.WithTimeout(ctx, helloTimeout)
	ws, _, err := websocket.Dial(dctx, addr, &websocket.DialOptions{HTTPClient: a.client})
	cancel()
	if err != nil {
		return false, fmt.Errorf("discord: connecting to the Gateway: %w", err)
	}
	ws.SetReadLimit(maxFrame)
	c := &conn{a: a, ws: ws, sess: sess}
	c.seq.Store(sess.seq)
	cctx, stop := context.WithCancel(ctx)
	defer func() {
		stop()
		if ctx.Err() != nil {
			// hermes is stopping: a normal close ends the session.
			_ = ws.Close(websocket.StatusNormalClosure, "hermes is stopping")
		} else {
			_ = ws.CloseNow() // the session stays resumable
		}
		sess.seq = c.seq.Load()
	}()
	interval, err := c.hello(cctx)
	if err != nil {
		return false, err
	}
	if err := c.greet(cctx); err != nil {
		return false, err
	}
	c.acked.Store(true)
	go c.heartbeat(cctx, interval)
	return c.read(cctx, deliver)
}

// hello reads Hello and returns the heartbeat interval.
func (c *conn) hello(ctx context.Context) (time.Duration, error) {
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	_, data, err := c.ws.Read(hctx)
	if err != nil {
		return 0, closedBy(err)
	}
	p, err := decode(data)
	if err != nil {
		return 0, err
	}
	var d struct {
		Interval float64 `json:"heartbeat_interval"`
	}
	if p.Op != opHello || json.Unmarshal(p.D, &d) != nil || d.Interval <= 0 {
		return 0, fmt.Errorf("discord: the Gateway's first message is op %d, not Hello with a heartbeat_interval", p.Op)
	}
	return time.Duration(d.Interval * float64(time.Millisecond)), nil
}

// greet resumes the session when there is one, else identifies.
func (c *conn) greet(ctx context.Context) error {
	if c.sess.id != "" {
		c.a.log.Info("discord: resuming", "seq", c.seq.Load())
		return c.send(ctx, opResume, map[string]any{"token": c.a.token, "session_id": c.sess.id, "seq": c.seq.Load()})
	}
	return c.send(ctx, opIdentify, map[string]any{
		"token":      c.a.token,
		"intents":    Intents,
		"properties": map[string]string{"os": runtime.GOOS, "browser": "hermes", "device": "hermes"},
	})
}

// send writes one payload.
func (c *conn) send(ctx context.Context, op int, d any) error {
	data, err := json.Marshal(map[string]any{"op": op, "d": d})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("discord: writing to the Gateway: %w", err)
	}
	return nil
}

// beat sends a heartbeat with the last sequence number taken.
func (c *conn) beat(ctx context.Context) error {
	var d any
	if s := c.seq.Load(); s >= 0 {
		d = s
	}
	return c.send(ctx, opHeartbeat, d)
}

// heartbeat beats every interval, the first after a random part of it,
// so that many clients do not beat together. A beat not acknowledged by
// the next closes the connection, which is then resumed.
func (c *conn) heartbeat(ctx context.Context, interval time.Duration) {
	t := c.a.clock.NewTimer(time.Duration(c.a.jitter() * float64(interval)))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if !c.acked.Swap(false) {
			c.zombie.Store(true)
			_ = c.ws.CloseNow()
			return
		}
		if err := c.beat(ctx); err != nil {
			return
		}
		t.Reset(interval)
	}
}

// read handles what the Gateway sends until the connection ends.
func (c *conn) read(ctx context.Context, deliver func(context.Context, gateway.Event) error) (up bool, err error) {
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			if c.zombie.Load() {
				return up, errZombie
			}
			return up, closedBy(err)
		}
		p, err := decode(data)
		if err != nil {
			return up, err
		}
		switch p.Op {
		case opHeartbeatACK:
			c.acked.Store(true)
		case opHeartbeat:
			if err := c.beat(ctx); err != nil {
				return up, err
			}
		case opReconnect:
			return up, errReconnect
		case opInvalidSession:
			var resumable bool
			_ = json.Unmarshal(p.D, &resumable)
			if resumable && c.sess.id != "" {
				return up, errReconnect
			}
			return up, fmt.Errorf("%w (op 9 Invalid Session)", errNewSession)
		case opDispatch:
			ok, err := c.dispatch(ctx, p, deliver)
			up = up || ok
			if err != nil {
				return up, err
			}
		}
	}
}

// dispatch handles one event; ok reports that the connection is up
// (READY or RESUMED). The sequence number moves past the event only once
// it is taken.
func (c *conn) dispatch(ctx context.Context, p payload, deliver func(context.Context, gateway.Event) error) (ok bool, err error) {
	switch p.T {
	case "READY":
		var r dcReady
		if err := json.Unmarshal(p.D, &r); err != nil || r.SessionID == "" {
			return false, fmt.Errorf("discord: READY without a session_id")
		}
		c.sess.id, c.sess.resumeURL = r.SessionID, r.ResumeGatewayURL
		c.a.mu.Lock()
		c.a.botID, c.a.appID = r.User.ID, r.Application.ID
		c.a.mu.Unlock()
		c.a.log.Info("discord: connected", "bot", r.User.Username, "bot_id", r.User.ID)
		ok = true
	case "RESUMED":
		c.a.log.Info("discord: resumed", "seq", c.seq.Load())
		ok = true
	default:
		if ev, has := c.a.event(p.T, p.D); has {
			if err := deliver(ctx, ev); err != nil {
				c.a.log.Warn("discord: an event was not taken; resuming so that Discord sends it again", "event", ev.ID, "err", err)
				return false, errNotTaken
			}
		}
	}
	if p.S != nil {
		c.seq.Store(*p.S)
	}
	if p.T != "" && p.T != "RESUMED" {
		c.a.saveSession(ctx, session{id: c.sess.id, resumeURL: c.sess.resumeURL, seq: c.seq.Load()})
	}
	return ok, nil
}
