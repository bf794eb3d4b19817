package wecomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/coder/websocket"
)

// frame is one message of the long connection.
type frame struct {
	Cmd     string `json:"cmd"`
	Headers struct {
		ReqID string `json:"req_id"`
	} `json:"headers"`
	Body json.RawMessage `json:"body"`
}

// serve takes one connection: nothing but aibot_subscribe is answered
// until it subscribes, and a new subscription closes the older
// connection, as WeCom keeps one per bot.
func (b *Bot) serve(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	ctx := r.Context()
	subscribed := false
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			b.mu.Lock()
			if b.conn == c {
				b.conn = nil
				b.touch()
			}
			b.mu.Unlock()
			return
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil || f.Headers.ReqID == "" {
			b.violate("a frame that is not JSON or has no req_id: %.80s", data)
			continue
		}
		answer := func(code int, msg string) {
			out, _ := json.Marshal(map[string]any{"headers": map[string]string{"req_id": f.Headers.ReqID}, "errcode": code, "errmsg": msg})
			c.Write(ctx, websocket.MessageText, out)
		}
		if f.Cmd == "aibot_subscribe" {
			var body struct {
				BotID  string `json:"bot_id"`
				Secret string `json:"secret"`
			}
			json.Unmarshal(f.Body, &body)
			if body.BotID != b.BotID || body.Secret != b.Secret {
				answer(40001, "invalid bot_id or secret")
				c.Close(websocket.StatusPolicyViolation, "not subscribed")
				return
			}
			b.mu.Lock()
			old := b.conn
			b.conn, b.subscribes = c, b.subscribes+1
			b.touch()
			b.mu.Unlock()
			if old != nil {
				go old.Close(websocket.StatusPolicyViolation, "another connection subscribed")
			}
			subscribed = true
			answer(0, "ok")
			continue
		}
		if !subscribed {
			b.violate("%s before aibot_subscribe", f.Cmd)
			answer(40014, "not subscribed")
			continue
		}
		b.framing.Lock()
		code, msg := b.command(ctx, f)
		if code != nil {
			answer(*code, msg)
		}
		b.framing.Unlock()
	}
}

// command does what f asks and returns the answer's errcode, nil for
// none (an ignored ping).
func (b *Bot) command(_ context.Context, f frame) (*int, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok := 0
	fail := func(code int, format string, args ...any) (*int, string) {
		return &code, fmt.Sprintf(format, args...)
	}
	switch f.Cmd {
	case "ping":
		b.pings++
		b.touch()
		if b.ignorePings {
			return nil, ""
		}
		return &ok, "ok"
	case "aibot_respond_msg", "aibot_send_msg":
		if len(b.fails) > 0 {
			code := b.fails[0]
			b.fails = b.fails[1:]
			return fail(code, "injected errcode %d", code)
		}
		if f.Cmd == "aibot_send_msg" {
			return b.sendMsg(f)
		}
		return b.respond(f)
	}
	b.violations = append(b.violations, "unknown cmd "+f.Cmd)
	return fail(40008, "unknown cmd %s", f.Cmd)
}

// respond takes one stream update; b.mu is held.
func (b *Bot) respond(f frame) (*int, string) {
	ok := 0
	fail := func(code int, format string, args ...any) (*int, string) {
		msg := fmt.Sprintf(format, args...)
		b.violations = append(b.violations, msg)
		return &code, msg
	}
	req, known := b.reqs[f.Headers.ReqID]
	if !known {
		return fail(40005, "req_id %s answers no message", f.Headers.ReqID)
	}
	if b.clock.Now().Sub(req.at) > ReqTTL {
		return fail(40005, "req_id %s has expired", f.Headers.ReqID)
	}
	var body struct {
		MsgType string `json:"msgtype"`
		Stream  *struct {
			ID      string `json:"id"`
			Content string `json:"content"`
			Finish  bool   `json:"finish"`
		} `json:"stream"`
	}
	if err := json.Unmarshal(f.Body, &body); err != nil || body.MsgType != "stream" || body.Stream == nil || body.Stream.ID == "" {
		return fail(40008, "aibot_respond_msg: want msgtype stream with a stream id: %.120s", f.Body)
	}
	if n := len(body.Stream.Content); n > MaxStream {
		return fail(40058, "stream content is %d bytes, at most %d", n, MaxStream)
	}
	s := b.streams[body.Stream.ID]
	switch {
	case s == nil:
		s = &Stream{ID: body.Stream.ID, ReqID: f.Headers.ReqID, Chat: req.chat}
		b.streams[s.ID] = s
		b.order = append(b.order, s.ID)
	case s.Finished:
		return fail(40059, "stream %s was already finished", s.ID)
	case s.ReqID != f.Headers.ReqID:
		return fail(40005, "stream %s moved from req_id %s to %s", s.ID, s.ReqID, f.Headers.ReqID)
	}
	s.Content, s.Finished = body.Stream.Content, body.Stream.Finish
	s.Updates++
	b.touch()
	return &ok, "ok"
}

// sendMsg takes a proactive message; b.mu is held.
func (b *Bot) sendMsg(f frame) (*int, string) {
	ok, bad := 0, 40008
	var body struct {
		ChatID   string `json:"chatid"`
		MsgType  string `json:"msgtype"`
		Markdown *struct {
			Content string `json:"content"`
		} `json:"markdown"`
	}
	if err := json.Unmarshal(f.Body, &body); err != nil || body.ChatID == "" || body.MsgType != "markdown" || body.Markdown == nil {
		b.violations = append(b.violations, "aibot_send_msg without chatid or markdown")
		return &bad, "want chatid and markdown"
	}
	b.proactive = append(b.proactive, Proactive{Chat: body.ChatID, Content: body.Markdown.Content})
	b.touch()
	return &ok, "ok"
}

func (b *Bot) violate(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.violations = append(b.violations, fmt.Sprintf(format, args...))
}
