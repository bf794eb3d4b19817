package discordtest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// post sends body as JSON to the server's path with the bot token (when
// auth) and returns the status and the decoded answer.
func post(t *testing.T, s *discordtest.Server, path string, auth bool, body any) (int, map[string]any, http.Header) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if auth {
		req.Header.Set("Authorization", "Bot "+s.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, resp.Header
}

// The server holds a client to Discord's rules: the token, 2000 code
// points of content (not bytes, not UTF-16 units), custom_id of 100, one
// answer per interaction, and rate-limit headers and 429 bodies as
// Discord sends them.
func TestServerIsStrict(t *testing.T) {
	s := discordtest.New(discordtest.Options{})
	t.Cleanup(s.Close)
	s.UserMessage(discordtest.Incoming{Content: "hi"})
	ch := discordtest.DMChannel(discordtest.Alice())
	msgs := "/channels/" + ch + "/messages"

	if code, _, _ := post(t, s, msgs, false, map[string]any{"content": "x"}); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	if code, _, _ := post(t, s, msgs, true, map[string]any{"content": strings.Repeat("😀", 2000)}); code != 200 {
		t.Errorf("2000 emoji: %d", code)
	}
	if code, out, _ := post(t, s, msgs, true, map[string]any{"content": strings.Repeat("a", 2001)}); code != 400 || out["code"] != float64(50035) {
		t.Errorf("2001 characters: %d %v", code, out)
	}
	row := map[string]any{"type": 1, "components": []any{map[string]any{"type": 2, "style": 1, "label": "b", "custom_id": strings.Repeat("c", 101)}}}
	if code, _, _ := post(t, s, msgs, true, map[string]any{"content": "x", "components": []any{row}}); code != 400 {
		t.Errorf("custom_id of 101: %d", code)
	}

	s.RateLimit(ch, 1, time.Minute)
	_, _, h := post(t, s, msgs, true, map[string]any{"content": "one"})
	if h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Bucket") == "" || h.Get("X-RateLimit-Reset-After") == "" {
		t.Errorf("bucket headers %v", h)
	}
	code, out, h := post(t, s, msgs, true, map[string]any{"content": "two"})
	if ra, _ := out["retry_after"].(float64); code != 429 || ra <= 0 || out["global"] != false || h.Get("Retry-After") == "" {
		t.Errorf("past the bucket: %d %v %v", code, out, h)
	}
	if limited, early := s.Limited(ch); limited != 1 || early != 1 {
		t.Errorf("limited %d, early %d", limited, early)
	}

	sent := s.Sent(ch)
	id := s.Press(ch, sent[0].ID, discordtest.Alice(), "x")
	if code, _, _ := post(t, s, "/interactions/"+id+"/wrong-token/callback", false, map[string]any{"type": 6}); code != 404 {
		t.Errorf("a callback with the wrong token: %d", code)
	}
	if code, _, _ := post(t, s, "/interactions/"+id+"/itoken-"+id+"/callback", false, map[string]any{"type": 6}); code != 204 {
		t.Errorf("the callback: %d", code)
	}
	if code, _, _ := post(t, s, "/interactions/"+id+"/itoken-"+id+"/callback", false, map[string]any{"type": 6}); code != 400 {
		t.Errorf("a second callback: %d", code)
	}
}
