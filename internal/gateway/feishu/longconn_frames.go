package feishu

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// longConn is one open long connection.
type longConn struct {
	a       *Adapter
	conn    *websocket.Conn
	service int32
	// parts are the payloads coming in parts, by message id.
	parts map[string][][]byte
	// pingEvery is PingInterval in seconds, which a pong may change while
	// ping waits.
	pingEvery atomic.Int64
}

// maxPending bounds the payloads waiting for their other parts.
const maxPending = 64

// ping sends a ping frame at once and then every PingInterval; Feishu
// drops a connection that stops pinging.
func (lc *longConn) ping(ctx context.Context) {
	for {
		f := frame{Service: lc.service, Method: methodControl, Headers: []header{{"type", "ping"}}}
		if err := lc.conn.Write(ctx, websocket.MessageBinary, f.marshal()); err != nil {
			return
		}
		every := time.Duration(max(lc.pingEvery.Load(), 1)) * time.Second
		if lc.a.clock.Sleep(ctx, every) != nil {
			return
		}
	}
}

// read takes frames until the connection fails: pongs update cfg, data
// frames are handled and acked, in the order they come.
func (lc *longConn) read(ctx context.Context, cfg *clientConfig) error {
	for {
		typ, b, err := lc.conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("feishu: reading the long connection: %w", err)
		}
		if typ != websocket.MessageBinary {
			continue
		}
		f, err := unmarshalFrame(b)
		if err != nil {
			lc.a.log.Warn("feishu: a long-connection frame could not be read", "err", err)
			continue
		}
		switch f.Method {
		case methodControl:
			if f.get("type") == "pong" && len(f.Payload) > 0 {
				var c clientConfig
				if json.Unmarshal(f.Payload, &c) == nil && c.PingInterval > 0 {
					*cfg = c
					lc.pingEvery.Store(int64(c.PingInterval))
				}
			}
		case methodData:
			if err := lc.data(ctx, f); err != nil {
				return err
			}
		}
	}
}

// data handles a data frame: an event or a card callback, or a part of
// one, and writes the ack.
func (lc *longConn) data(ctx context.Context, f frame) error {
	payload := f.Payload
	if sum, _ := strconv.Atoi(f.get("sum")); sum > 1 {
		if payload = lc.combine(f.get("message_id"), sum, f.get("seq"), f.Payload); payload == nil {
			return nil
		}
	}
	kind := f.get("type")
	if kind != "event" && kind != "card" {
		return nil
	}
	start := lc.a.clock.Now()
	status, answer := lc.a.handleLong(ctx, payload)
	ack := map[string]any{"code": status, "headers": map[string]string{}}
	if answer != nil {
		data, _ := json.Marshal(answer)
		ack["data"] = data // []byte: base64, as Feishu reads it
	}
	f.Payload, _ = json.Marshal(ack)
	f.set("biz_rt", strconv.FormatInt(lc.a.clock.Now().Sub(start).Milliseconds(), 10))
	return lc.conn.Write(ctx, websocket.MessageBinary, f.marshal())
}

// combine keeps part seq of sum of message id, and returns the whole
// payload once every part is in.
func (lc *longConn) combine(id string, sum int, seq string, part []byte) []byte {
	i, err := strconv.Atoi(seq)
	if err != nil || i < 0 || i >= sum || sum > 1024 {
		return nil
	}
	buf := lc.parts[id]
	if len(buf) != sum {
		if len(lc.parts) >= maxPending {
			clear(lc.parts) // parts whose others never came
		}
		buf = make([][]byte, sum)
		lc.parts[id] = buf
	}
	buf[i] = part
	var whole []byte
	for _, p := range buf {
		if p == nil {
			return nil
		}
		whole = append(whole, p...)
	}
	delete(lc.parts, id)
	return whole
}

// handleLong handles an event that came down the long connection. The
// connection is Feishu's, opened with the app's credentials, so the
// event is neither signed nor encrypted; its verification token, when it
// carries one, must still be the app's.
func (a *Adapter) handleLong(ctx context.Context, payload []byte) (int, any) {
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil || env.Schema != "2.0" {
		a.log.Warn("feishu: a long-connection event is not a schema 2.0 event")
		return http.StatusOK, nil
	}
	if env.Header.Token != "" && a.verifyToken != "" && !equalSecret(env.Header.Token, a.verifyToken) {
		a.log.Warn("feishu: a long-connection event with another verification token was dropped")
		return http.StatusOK, nil
	}
	status, answer := a.handle(ctx, env)
	if status != http.StatusOK {
		return http.StatusInternalServerError, nil
	}
	return status, answer
}
