package ui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// TestPagesShowTheSeededHome loads every page over a seeded state.db and
// checks each shows its data.
func TestPagesShowTheSeededHome(t *testing.T) {
	h := seed(t)
	c := newClient(t, New(h.opt))
	c.login(testKey)
	for _, tc := range []struct {
		path  string
		wants []string
	}{
		{"/ui/", []string{"Running now", "running now", "count to ten slowly", "sleep", "so far", "Recent", "terminal", "read_file",
			`class="st error"`, "weekly report", "<svg class=\"timeline\""}},
		{"/ui/turns", []string{"s-live", "Running now"}},
		{"/ui/sessions", []string{"s-live", "weekly report", "gpt-b", "$1.25", "alice (globex)"}},
		{"/ui/sessions?q=kumquats", []string{"weekly report", "<mark>kumquats</mark>"}},
		{"/ui/sessions/s-attack", []string{"s-attack", "terminal", "read_file", "no such file", "finished:", "$0.50", "mallory (tenant acme)"}},
		{"/ui/jobs", []string{"morning-brief", "0 9 * * *", "2026-12-02 09:00", "model timed out", "Run now", `value="`}},
		{"/ui/deliveries", []string{"job morning-brief", "chat not found (&lt;b&gt;bold&lt;/b&gt;)", "bot was blocked", "chat 555", "Delivered"}},
		{"/ui/costs", []string{"gpt-a", "gpt-b", "$1.85", `id="per-day"`, "<rect", "2026-11-30", "Per user", "alice · $1.25", "mallory · $0.50",
			"(local owner) · $0.10", "Per tenant", "globex · $1.25", "acme · $0.50"}},
		{"/ui/platforms", []string{"telegram", "@hermes_bot, polling", "slack", "invalid_auth", "failing"}},
	} {
		status, body := c.get(tc.path)
		if status != http.StatusOK {
			t.Errorf("GET %s = %d, want 200:\n%s", tc.path, status, body)
			continue
		}
		mustContain(t, tc.path, body, tc.wants...)
	}
}

// TestPagesShowAttacksAsText stores a <script> in a session's title, a
// tool call's arguments, a message and a delivery's error, and checks
// every page shows them escaped, never as markup.
func TestPagesShowAttacksAsText(t *testing.T) {
	h := seed(t)
	c := newClient(t, New(h.opt))
	c.login(testKey)
	for _, path := range []string{"/ui/", "/ui/sessions", "/ui/sessions/s-attack", "/ui/sessions?q=script", "/ui/sessions?q=onerror", "/ui/deliveries"} {
		status, body := c.get(path)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d", path, status)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>bold"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s shows %q as markup", path, raw)
			}
		}
	}
	_, body := c.get("/ui/sessions/s-attack")
	mustContain(t, "the session", body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;",
		"&lt;script&gt;alert(&#39;args&#39;)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;")
	_, body = c.get("/ui/sessions")
	mustContain(t, "the session list", body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;")
}

// TestPagesRedact checks a secret stored in a message or a tool call
// reaches no page.
func TestPagesRedact(t *testing.T) {
	h := seed(t)
	h.opt.Redact = func(s string) string { return strings.ReplaceAll(s, "/etc/hosts", "[REDACTED]") }
	c := newClient(t, New(h.opt))
	c.login(testKey)
	for _, path := range []string{"/ui/", "/ui/sessions/s-attack"} {
		_, body := c.get(path)
		if strings.Contains(body, "/etc/hosts") {
			t.Errorf("GET %s shows the secret", path)
		}
		mustContain(t, path, body, "[REDACTED]")
	}
}

// TestPagesAnswerBadInput checks an unknown session, a bad page number
// and an unknown job say what is wrong.
func TestPagesAnswerBadInput(t *testing.T) {
	h := seed(t)
	c := newClient(t, New(h.opt))
	c.login(testKey)
	status, body := c.get("/ui/sessions/nope%3Cscript%3E")
	if status != http.StatusNotFound || !strings.Contains(body, "session &#34;nope&lt;script&gt;&#34; does not exist") {
		t.Errorf("unknown session = %d %s", status, body)
	}
	status, body = c.get("/ui/sessions?page=-1")
	if status != http.StatusBadRequest || !strings.Contains(body, "page: &#34;-1&#34; is not accepted; use a whole number from 0 to 100000") {
		t.Errorf("bad page = %d %s", status, body)
	}
	_, jobs := c.get("/ui/jobs")
	status, body = c.post("/ui/jobs/nosuch/run", url.Values{"csrf": {csrfOf(t, jobs)}})
	if status != http.StatusNotFound || !strings.Contains(body, "job &#34;nosuch&#34; did not start") {
		t.Errorf("unknown job = %d %s", status, body)
	}
	status, _ = c.get("/ui/nothing")
	if status != http.StatusNotFound {
		t.Errorf("unknown page = %d, want 404", status)
	}
}

// TestRunNow posts the run-now button with the page's token.
func TestRunNow(t *testing.T) {
	h := seed(t)
	c := newClient(t, New(h.opt))
	c.login(testKey)
	_, jobs := c.get("/ui/jobs")
	status, _ := c.post("/ui/jobs/morning-brief/run", url.Values{"csrf": {csrfOf(t, jobs)}})
	if status != http.StatusSeeOther || len(h.ran) != 1 {
		t.Fatalf("run now = %d, ran %v; want 303 and the job run once", status, h.ran)
	}
	_, body := c.get("/ui/jobs?ran=morning-brief&run=99")
	mustContain(t, "the jobs page after run-now", body, "Job morning-brief started now as run 99")
}

// TestSourceLimitsTheSessionsShown checks that a dashboard limited to
// the API's sessions (api.sessions: api) shows no other conversation: not
// in the lists, the search, the turns, a session's page or the text of
// an undelivered reply.
func TestSourceLimitsTheSessionsShown(t *testing.T) {
	h := seed(t)
	if err := h.sessions.Create(context.Background(), &session.Session{ID: "s-api", Source: "api", Title: "an api conversation", StartedAt: h.clock.Now().Add(-3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	h.opt.Source = "api"
	c := newClient(t, New(h.opt))
	c.login(testKey)
	for _, path := range []string{"/ui/", "/ui/sessions", "/ui/sessions?q=kumquats", "/ui/sessions?q=ten", "/ui/deliveries"} {
		status, body := c.get(path)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d", path, status)
		}
		for _, other := range []string{"weekly report", "s-live", "count to ten", "s-attack", "your reply"} {
			if strings.Contains(body, other) {
				t.Errorf("GET %s shows %q of a session that is not the API's", path, other)
			}
		}
	}
	_, body := c.get("/ui/sessions")
	mustContain(t, "the session list", body, "an api conversation")
	for _, id := range []string{"s-attack", "s-live"} {
		if status, _ := c.get("/ui/sessions/" + id); status != http.StatusNotFound {
			t.Errorf("GET the page of %s = %d, want 404", id, status)
		}
	}
}

// TestPagesSayWhyTheirDataFailed checks a store's error reaches the page
// as a 500 that says it, redacted.
func TestPagesSayWhyTheirDataFailed(t *testing.T) {
	h := seed(t)
	h.opt.Costs = func(context.Context, time.Time) ([]Cost, error) {
		return nil, errors.New("usage table is locked by sk-secret-123")
	}
	h.opt.Redact = func(s string) string { return strings.ReplaceAll(s, "sk-secret-123", "[REDACTED]") }
	c := newClient(t, New(h.opt))
	c.login(testKey)
	status, body := c.get("/ui/costs")
	if status != http.StatusInternalServerError || !strings.Contains(body, "usage table is locked by [REDACTED]") || strings.Contains(body, "sk-secret-123") {
		t.Errorf("a failing store = %d:\n%s", status, body)
	}
	mustContain(t, "the failed page", body, "<title>Costs · hermes</title>")
}
