package ui

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// testKey is the API key of the seeded dashboards.
const testKey = "sk-dashboard-test-key"

// Attacker-controlled text the seed stores, which every page must show
// as text.
const (
	xssTitle = `<script>alert("title")</script>`
	xssArgs  = `{"command":"<script>alert('args')</script>"}`
	xssText  = `<img src=x onerror=alert(1)>`
)

// home is a seeded state.db with the dashboard over it.
type home struct {
	sessions *sqlite.Store
	jobs     *cron.Store
	clock    *clock.Fake
	ran      []string
	opt      Options
}

// seed opens state.db in a temporary directory and fills it with a
// session whose title, tool arguments and text are attacks, a turn
// running now, costs on two days and two models, and a job with runs
// that delivered and failed.
func seed(t testing.TB) *home {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := sqlite.New(db, sqlite.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := cron.NewStore(db, cron.StoreOptions{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	h := &home{sessions: st, jobs: jobs, clock: clk}
	at := start.Add(-2 * time.Hour)
	h.addTurn(t, session.Session{ID: "s-attack", Title: xssTitle, Model: "gpt-a", StartedAt: at, User: "mallory", Tenant: "acme"}, xssText, []llm.ToolCall{
		{ID: "c1", Name: "terminal", Arguments: xssArgs},
		{ID: "c2", Name: "read_file", Arguments: `{"path":"/etc/hosts"}`},
	}, []string{`{"status":"ok","data":"done"}`, `{"status":"error","error_code":"not_found","message":"no such file"}`}, 0.5)
	h.addTurn(t, session.Session{ID: "s-yesterday", Title: "weekly report", Model: "gpt-b", StartedAt: at.Add(-24 * time.Hour), User: "alice", Tenant: "globex"},
		"write the weekly report about kumquats", nil, nil, 1.25)
	h.addTurn(t, session.Session{ID: "s-live", Title: "running now", Model: "gpt-a", StartedAt: start.Add(-time.Minute)}, "count to ten slowly", []llm.ToolCall{{ID: "c9", Name: "sleep", Arguments: `{"seconds":60}`}}, nil, 0.1)
	if _, err := st.AcquireLease(ctx, session.LeaseRequest{SessionID: "s-live", Holder: "host/42", Now: start, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Create(ctx, cron.Job{Name: "morning-brief", Spec: cron.Spec{Schedule: "0 9 * * *", Prompt: "brief me", Deliver: []string{"telegram:123"}}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	for i, r := range []cron.RunResult{
		{SessionID: "s-yesterday", Output: "all good", Deliveries: []cron.Delivery{{Target: "telegram:123", OK: true}}},
		{Err: errors.New("model timed out"), Deliveries: []cron.Delivery{{Target: "telegram:123", Error: "telegram: chat not found (<b>bold</b>)"}}},
	} {
		id, err := jobs.StartRun(ctx, "morning-brief", start.Add(time.Duration(i-2)*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := jobs.FinishRun(ctx, id, r); err != nil {
			t.Fatal(err)
		}
	}
	h.opt = Options{
		Keys: []string{testKey}, Sessions: st, Jobs: jobs, Clock: clk,
		RunJob: func(_ context.Context, name string) (int64, error) {
			if name != "morning-brief" {
				return 0, cron.ErrNotFound
			}
			h.ran = append(h.ran, name)
			return 99, nil
		},
		Live: func(ctx context.Context) ([]Live, error) {
			rs, err := st.Running(ctx, clk.Now())
			var out []Live
			for _, r := range rs {
				out = append(out, Live{SessionID: r.SessionID, Holder: r.Holder})
			}
			return out, err
		},
		Costs: func(ctx context.Context, since time.Time) ([]Cost, error) {
			rows, err := st.DailyUsage(ctx, session.UsageQuery{From: since.Format(time.DateOnly)})
			var out []Cost
			for _, r := range rows {
				day, _ := time.Parse(time.DateOnly, r.Day)
				out = append(out, Cost{Day: day, User: r.User, Tenant: r.Tenant, Model: r.Model, CostUSD: r.CostUSD, Tokens: r.InputTokens + r.OutputTokens})
			}
			return out, err
		},
		Failures: func(context.Context, int) ([]Failure, error) {
			return []Failure{{Time: start.Add(-time.Hour), Where: "chat 555", Text: "your reply " + xssText, Error: "telegram: Forbidden: bot was blocked", Attempts: 5}}, nil
		},
		Platforms: func(context.Context) ([]Platform, error) {
			return []Platform{{Name: "telegram", OK: true, Detail: "@hermes_bot, polling"}, {Name: "slack", OK: false, Detail: "invalid_auth"}}, nil
		},
	}
	return h
}

// addTurn stores a session with one turn: the user's text, a reply with
// the calls, their results a second apart each, and a final answer. The
// clock stands at the turn's end while its usage is recorded, so the
// cost counts on that day.
func (h *home) addTurn(t testing.TB, s session.Session, text string, calls []llm.ToolCall, results []string, cost float64) {
	t.Helper()
	ctx := context.Background()
	at := s.StartedAt
	if s.Source == "" {
		s.Source = "cli"
	}
	if err := h.sessions.Create(ctx, &s); err != nil {
		t.Fatal(err)
	}
	msgs := []*session.Message{{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(text)}}, CreatedAt: at}}
	if len(calls) > 0 {
		msgs = append(msgs, &session.Message{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}, CreatedAt: at.Add(time.Second)})
	}
	for i, r := range results {
		msgs = append(msgs, &session.Message{Message: llm.ToolResultMessage(calls[i].ID, calls[i].Name, r), CreatedAt: at.Add(time.Duration(2+i) * time.Second)})
	}
	if len(calls) == len(results) {
		msgs = append(msgs, &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("finished: " + text)}}, CreatedAt: at.Add(10 * time.Second)})
	}
	now := h.clock.Now()
	h.clock.Set(at.Add(10 * time.Second))
	defer h.clock.Set(now)
	if err := h.sessions.Record(ctx, s.ID, session.Usage{InputTokens: 1000, OutputTokens: 100, CostUSD: cost}, msgs...); err != nil {
		t.Fatal(err)
	}
}

// client talks to a dashboard over HTTP, keeping its cookies, without
// following redirects.
type client struct {
	t   testing.TB
	c   *http.Client
	url string
}

func newClient(t testing.TB, h http.Handler) *client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	return &client{t: t, url: srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get fetches a path and returns the status and the body.
func (c *client) get(path string) (int, string) {
	c.t.Helper()
	resp, err := c.c.Get(c.url + path)
	if err != nil {
		c.t.Fatal(err)
	}
	return read(c.t, resp)
}

// post posts a form and returns the status and the body.
func (c *client) post(path string, form url.Values) (int, string) {
	c.t.Helper()
	resp, err := c.c.PostForm(c.url+path, form)
	if err != nil {
		c.t.Fatal(err)
	}
	return read(c.t, resp)
}

// login logs in with key and fails the test unless it worked.
func (c *client) login(key string) {
	c.t.Helper()
	if status, body := c.post("/ui/login", url.Values{"key": {key}}); status != http.StatusSeeOther {
		c.t.Fatalf("login = %d %s, want 303", status, body)
	}
}

func read(t testing.TB, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfOf finds the CSRF token in a page's forms.
func csrfOf(t testing.TB, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf token in the page:\n%s", body)
	}
	return m[1]
}

// mustContain fails unless body holds every one of wants.
func mustContain(t testing.TB, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s does not show %q", what, w)
		}
	}
}

// recorder serves one request and returns what was written.
func recorder(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}
