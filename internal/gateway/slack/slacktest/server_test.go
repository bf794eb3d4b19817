package slacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// call makes one Web API call with token and returns the status, the
// Retry-After and the answer.
func call(t *testing.T, s *Server, method, token string, params map[string]any) (int, string, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(params)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/"+method, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header.Get("Retry-After"), out
}

// The server answers as Slack does: errors in 200 answers, its limits in
// their units, the right kind of token per method, and 429 with
// Retry-After from the fault knob and the per-channel pace.
func TestWebAPI(t *testing.T) {
	s := New(Options{Pace: time.Hour})
	defer s.Close()
	post := func(p map[string]any) (int, string, map[string]any) {
		return call(t, s, "chat.postMessage", s.BotToken, p)
	}
	for name, c := range map[string]struct {
		token  string
		method string
		params map[string]any
		want   string
	}{
		"app token for a bot method": {s.AppToken, "chat.postMessage", map[string]any{"channel": "C1", "text": "x"}, "not_allowed_token_type"},
		"bot token for Socket Mode":  {s.BotToken, "apps.connections.open", nil, "not_allowed_token_type"},
		"no token":                   {"", "auth.test", nil, "not_authed"},
		"text over 40,000 chars":     {s.BotToken, "chat.postMessage", map[string]any{"channel": "C2", "text": strings.Repeat("é", 40001)}, "msg_too_long"},
		"section over 3,000 chars": {s.BotToken, "chat.postMessage", map[string]any{"channel": "C3", "text": "x",
			"blocks": []any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": strings.Repeat("a", 3001)}}}}, "invalid_blocks"},
		"thread that is not there": {s.BotToken, "chat.postMessage", map[string]any{"channel": "C4", "text": "x", "thread_ts": "1.000009"}, "thread_not_found"},
		"update of nothing":        {s.BotToken, "chat.update", map[string]any{"channel": "C1", "ts": "1.1", "text": "x"}, "message_not_found"},
	} {
		code, _, out := call(t, s, c.method, c.token, c.params)
		if code != 200 || out["ok"] != false || out["error"] != c.want {
			t.Errorf("%s: %d %v, want 200 and error %s", name, code, out, c.want)
		}
	}
	_, _, out := post(map[string]any{"channel": "C5", "text": "first"})
	ts, _ := out["ts"].(string)
	if code, retry, _ := post(map[string]any{"channel": "C5", "text": "too soon"}); code != 429 || retry != "3600" {
		t.Errorf("a second post within the pace: %d Retry-After %q, want 429 3600", code, retry)
	}
	if code, _, out := call(t, s, "chat.update", s.BotToken, map[string]any{"channel": "C5", "ts": ts, "text": strings.Repeat("é", 2001)}); code != 200 || out["error"] != "msg_too_long" {
		t.Errorf("an update over 4,000 bytes: %d %v", code, out)
	}
	s.RateLimit("C6", 1500*time.Millisecond)
	if code, retry, _ := post(map[string]any{"channel": "C6", "text": "x"}); code != 429 || retry != "2" {
		t.Errorf("the rate limit knob: %d Retry-After %q, want 429 2", code, retry)
	}
	if code, _, out := post(map[string]any{"channel": "C6", "text": "x"}); code != 200 || out["ok"] != true {
		t.Errorf("after the knob: %d %v", code, out)
	}
}

// A Socket Mode URL works once; the connection says hello, and an
// envelope not acknowledged is sent again on the next connection with
// retry_attempt counted.
func TestSocketModeReplaysUnacknowledged(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, out := call(t, s, "apps.connections.open", s.AppToken, nil)
	url, _ := out["url"].(string)
	read := func(c *websocket.Conn) map[string]any {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		json.Unmarshal(data, &f)
		return f
	}
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := read(c); f["type"] != "hello" {
		t.Fatalf("first frame %v", f)
	}
	if _, _, err := websocket.Dial(ctx, url, nil); err == nil {
		t.Error("a used Socket Mode URL connected again")
	}
	s.Message(Incoming{Text: "hi"})
	if f := read(c); f["type"] != "events_api" || f["retry_attempt"] != float64(0) {
		t.Fatalf("envelope %v", f)
	}
	s.Drop()
	_, _, out = call(t, s, "apps.connections.open", s.AppToken, nil)
	url, _ = out["url"].(string)
	c2, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.CloseNow()
	read(c2) // hello
	f := read(c2)
	if f["type"] != "events_api" || f["retry_attempt"] != float64(1) {
		t.Fatalf("the replayed envelope %v", f)
	}
	ack, _ := json.Marshal(map[string]any{"envelope_id": f["envelope_id"]})
	c2.Write(ctx, websocket.MessageText, ack)
	if err := s.Wait(ctx, func() bool { return len(s.Pending()) == 0 }); err != nil {
		t.Errorf("the ack was not recorded: %v", s.Pending())
	}
}
