package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Slack's limits, as the server enforces them.
const (
	// MaxPostText is the most characters of chat.postMessage text
	// (Slack truncates past it; the server refuses, so a test sees it).
	MaxPostText = 40000
	// MaxUpdateBytes is the most bytes of chat.update text.
	MaxUpdateBytes = 4000
	// MaxSection is the most characters of a section's text.
	MaxSection = 3000
	// MaxBlocks is the most blocks of a message.
	MaxBlocks = 50
	// MaxValue and MaxActionID bound a button.
	MaxValue, MaxActionID = 2000, 255
)

// serveAPI answers /api/<method>.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	var p map[string]any
	if len(body) > 0 {
		if err := json.Unmarshal(body, &p); err != nil {
			s.answer(w, method, "", "invalid_json", nil)
			return
		}
	}
	channel, _ := p["channel"].(string)
	tok := bearer(r)
	switch {
	case method == "apps.connections.open" && tok != s.AppToken:
		s.answer(w, method, channel, tokenError(tok, "xapp-"), nil)
		return
	case method != "apps.connections.open" && tok != s.BotToken:
		s.answer(w, method, channel, tokenError(tok, "xoxb-"), nil)
		return
	}
	s.mu.Lock()
	if code, ok := s.fail[method]; ok {
		delete(s.fail, method)
		s.mu.Unlock()
		s.answer(w, method, channel, code, nil)
		return
	}
	var (
		wait    time.Duration
		limited bool
	)
	if method == "chat.postMessage" || method == "chat.update" {
		wait, limited = s.limits[channel]
		delete(s.limits, channel)
	}
	if last, ok := s.last[channel]; ok && method == "chat.postMessage" && s.pace > 0 {
		if left := s.pace - s.clock.Now().Sub(last); left > 0 {
			wait, limited = max(wait, left), true
		}
	}
	if limited {
		s.calls = append(s.calls, Call{Time: s.clock.Now(), Method: method, Channel: channel, Error: "ratelimited"})
		s.changedLocked()
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+999_999_999)/1_000_000_000)))
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if method == "chat.postMessage" {
		s.last[channel] = s.clock.Now()
	}
	s.mu.Unlock()
	var (
		out  map[string]any
		code string
	)
	switch method {
	case "auth.test":
		out = map[string]any{"user_id": s.BotUser, "bot_id": s.BotID, "team_id": "T0001", "team": "Test Team", "user": "hermes"}
	case "apps.connections.open":
		out = map[string]any{"url": s.ticket()}
	case "chat.postMessage":
		out, code = s.postMessage(p)
	case "chat.update":
		out, code = s.update(p)
	case "chat.postEphemeral":
		out, code = s.postEphemeral(p)
	default:
		code = "unknown_method"
	}
	s.answer(w, method, channel, code, out)
}

// tokenError is Slack's answer to a wrong token: the other kind of token
// is not_allowed_token_type, anything else invalid_auth.
func tokenError(tok, want string) string {
	if tok == "" {
		return "not_authed"
	}
	if (strings.HasPrefix(tok, "xoxb-") || strings.HasPrefix(tok, "xapp-")) && !strings.HasPrefix(tok, want) {
		return "not_allowed_token_type"
	}
	return "invalid_auth"
}

// answer records the call and writes {"ok":true,…} or, with code,
// {"ok":false,"error":code} with status 200.
func (s *Server) answer(w http.ResponseWriter, method, channel, code string, out map[string]any) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Time: s.clock.Now(), Method: method, Channel: channel, Error: code})
	s.changedLocked()
	s.mu.Unlock()
	if code != "" {
		writeJSON(w, map[string]any{"ok": false, "error": code})
		return
	}
	if out == nil {
		out = map[string]any{}
	}
	out["ok"] = true
	writeJSON(w, out)
}

func (s *Server) postMessage(p map[string]any) (map[string]any, string) {
	channel, _ := p["channel"].(string)
	text, _ := p["text"].(string)
	thread, _ := p["thread_ts"].(string)
	blocks, code := checkBlocks(p)
	switch {
	case code != "":
		return nil, code
	case channel == "":
		return nil, "channel_not_found"
	case strings.TrimSpace(text) == "" && len(blocks) == 0:
		return nil, "no_text"
	case utf8.RuneCountInString(text) > MaxPostText:
		return nil, "msg_too_long"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if thread != "" && s.findLocked(channel, thread) == nil {
		return nil, "thread_not_found"
	}
	m := &Message{Channel: channel, TS: s.tsLocked(), ThreadTS: thread, User: s.BotUser, Text: text, Blocks: blocks, Params: p}
	s.channels[channel] = append(s.channels[channel], m)
	s.changedLocked()
	return map[string]any{"channel": channel, "ts": m.TS}, ""
}

func (s *Server) update(p map[string]any) (map[string]any, string) {
	channel, _ := p["channel"].(string)
	ts, _ := p["ts"].(string)
	text, _ := p["text"].(string)
	blocks, code := checkBlocks(p)
	switch {
	case code != "":
		return nil, code
	case len(text) > MaxUpdateBytes:
		return nil, "msg_too_long"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findLocked(channel, ts)
	switch {
	case m == nil:
		return nil, "message_not_found"
	case m.User != s.BotUser:
		return nil, "cant_update_message"
	}
	if _, ok := p["text"]; ok {
		m.Text = text
	}
	if _, ok := p["blocks"]; ok {
		m.Blocks = blocks
	}
	m.Edits++
	s.changedLocked()
	return map[string]any{"channel": channel, "ts": ts}, ""
}

func (s *Server) postEphemeral(p map[string]any) (map[string]any, string) {
	var e Ephemeral
	e.Channel, _ = p["channel"].(string)
	e.User, _ = p["user"].(string)
	e.Text, _ = p["text"].(string)
	e.ThreadTS, _ = p["thread_ts"].(string)
	if e.Channel == "" || e.User == "" {
		return nil, "channel_not_found"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ephemeral = append(s.ephemeral, e)
	s.changedLocked()
	return map[string]any{"message_ts": s.tsLocked()}, ""
}

// checkBlocks decodes the blocks of a call and checks Slack's limits;
// the code is invalid_blocks for any broken one.
func checkBlocks(p map[string]any) ([]Block, string) {
	raw, ok := p["blocks"]
	if !ok {
		return nil, ""
	}
	data, _ := json.Marshal(raw)
	var blocks []Block
	if err := json.Unmarshal(data, &blocks); err != nil || len(blocks) > MaxBlocks {
		return nil, "invalid_blocks"
	}
	ids := map[string]bool{}
	for _, b := range blocks {
		switch b.Type {
		case "section":
			if b.Text == nil || b.Text.Text == "" || utf8.RuneCountInString(b.Text.Text) > MaxSection ||
				(b.Text.Type != "mrkdwn" && b.Text.Type != "plain_text") {
				return nil, "invalid_blocks"
			}
		case "actions":
			if len(b.Elements) == 0 || len(b.Elements) > 25 {
				return nil, "invalid_blocks"
			}
			for _, e := range b.Elements {
				if e.Type != "button" || e.Text == nil || e.Text.Type != "plain_text" || e.ActionID == "" ||
					len(e.ActionID) > MaxActionID || utf8.RuneCountInString(e.Value) > MaxValue || ids[e.ActionID] {
					return nil, "invalid_blocks"
				}
				ids[e.ActionID] = true
			}
		default:
			return nil, "invalid_blocks"
		}
	}
	return blocks, ""
}

// Button returns the value of the button labelled label on m, or "".
func (m Message) Button(label string) string {
	for _, b := range m.Blocks {
		for _, e := range b.Elements {
			if e.Text != nil && e.Text.Text == label {
				return e.Value
			}
		}
	}
	return ""
}

func (s *Server) String() string { return fmt.Sprintf("slacktest.Server(%s)", s.URL) }
