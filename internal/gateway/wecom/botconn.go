package wecom

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// frame is one message on the AI bot's long connection, both ways:
// a command with its req_id and body, or the answer to one, which has
// the command's req_id and an errcode.
type frame struct {
	Cmd     string          `json:"cmd,omitempty"`
	Headers frameHeaders    `json:"headers"`
	Body    json.RawMessage `json:"body,omitempty"`
	ErrCode *int            `json:"errcode,omitempty"`
	ErrMsg  string          `json:"errmsg,omitempty"`
}

type frameHeaders struct {
	ReqID string `json:"req_id"`
}

// answerTimeout is how long a command waits for its answer; one not
// answered by then is taken as lost with the connection.
const answerTimeout = 10 * time.Second

// maxFrame bounds a frame read; callbacks are a few KB.
const maxFrame = 1 << 20

// botConn is one connection: it writes frames one at a time and hands
// each answer to the command waiting for it.
type botConn struct {
	ws  *websocket.Conn
	wmu sync.Mutex

	mu sync.Mutex
	// waiting holds, by req_id, the commands waiting for an answer in
	// the order they were sent (replies to one message share its req_id).
	waiting map[string][]chan frame
	closed  chan struct{}
	once    sync.Once
}

func newBotConn(ws *websocket.Conn) *botConn {
	ws.SetReadLimit(maxFrame)
	return &botConn{ws: ws, waiting: map[string][]chan frame{}, closed: make(chan struct{})}
}

// close ends every wait; the session closes the socket.
func (c *botConn) close() { c.once.Do(func() { close(c.closed) }) }

// newReqID returns a fresh req_id for a command of hermes's own.
func newReqID(cmd string) string {
	var b [8]byte
	rand.Read(b[:])
	return cmd + "_" + hex.EncodeToString(b[:])
}

// write sends f.
func (c *botConn) write(ctx context.Context, f frame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// call sends cmd with body under reqID and waits for its answer; an
// errcode other than 0 is an *apiError.
func (c *botConn) call(ctx context.Context, cmd, reqID string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ch := make(chan frame, 1)
	c.mu.Lock()
	c.waiting[reqID] = append(c.waiting[reqID], ch)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	if err := c.write(ctx, frame{Cmd: cmd, Headers: frameHeaders{ReqID: reqID}, Body: raw}); err != nil {
		c.forget(reqID, ch)
		return fmt.Errorf("wecom bot: %s: %w", cmd, err)
	}
	answered := func(f frame) error {
		if f.ErrCode != nil && *f.ErrCode != 0 {
			return &apiError{Path: cmd, Code: *f.ErrCode, Message: f.ErrMsg}
		}
		return nil
	}
	select {
	case f := <-ch:
		return answered(f)
	case <-c.closed:
		// The reader hands over every answer it read before it closes:
		// one may be waiting although select picked the close.
		select {
		case f := <-ch:
			return answered(f)
		default:
		}
		c.forget(reqID, ch)
		return fmt.Errorf("wecom bot: %s: the connection closed before the answer", cmd)
	case <-ctx.Done():
		c.forget(reqID, ch)
		return fmt.Errorf("wecom bot: %s: no answer within %s", cmd, answerTimeout)
	}
}

// forget drops a wait that ended without its answer.
func (c *botConn) forget(reqID string, ch chan frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.waiting[reqID]
	for i, w := range q {
		if w == ch {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(c.waiting, reqID)
	} else {
		c.waiting[reqID] = q
	}
}

// answer hands f to the oldest command waiting under its req_id, and
// reports whether one was.
func (c *botConn) answer(f frame) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.waiting[f.Headers.ReqID]
	if len(q) == 0 {
		return false
	}
	q[0] <- f
	if len(q) == 1 {
		delete(c.waiting, f.Headers.ReqID)
	} else {
		c.waiting[f.Headers.ReqID] = q[1:]
	}
	return true
}

// errRefused is a subscription WeCom refused: the bot id or secret is
// wrong, and reconnecting will not help.
var errRefused = errors.New("wecom bot: the long connection refused the bot id and secret")
