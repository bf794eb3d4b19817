package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestDashboardFollowsAPISessions runs serve with the default
// api.sessions (api) over a home holding a telegram session, and checks
// through HTTP that the dashboard needs the key, shows the API's session
// but not the telegram one (not in the list, the search or at its own
// address), and hides the text of an undelivered chat reply.
func TestDashboardFollowsAPISessions(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Noted."})
	h := newHome(t)
	h.write(".env", "HERMES_API_KEY="+uiKey+"\n")
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
api: {enabled: true, listen: "127.0.0.1:0"}
`)
	seedUIHome(t, h)
	base := startServeAPI(t, h, uiKey)
	uiTurn(t, base)

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("/ui/sessions"); status != http.StatusUnauthorized || !strings.Contains(body, `action="/ui/login"`) {
		t.Fatalf("the dashboard without a login = %d", status)
	}
	resp, err := c.PostForm(base+"/ui/login", url.Values{"key": {uiKey}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login = %d", resp.StatusCode)
	}
	status, body := get("/ui/sessions")
	if status != http.StatusOK || !strings.Contains(body, "summarize the logs") {
		t.Fatalf("the session list = %d, without the API's session:\n%s", status, body)
	}
	for _, path := range []string{"/ui/sessions", "/ui/sessions?q=kumquats", "/ui/turns", "/ui/deliveries"} {
		_, body := get(path)
		for _, other := range []string{"weekly report", "kumquats</mark>", "your answer"} {
			if strings.Contains(body, other) {
				t.Errorf("%s shows %q of a telegram session with api.sessions: api", path, other)
			}
		}
	}
	if status, _ := get("/ui/sessions/s-report"); status != http.StatusNotFound {
		t.Errorf("the telegram session's page = %d, want 404", status)
	}
}
