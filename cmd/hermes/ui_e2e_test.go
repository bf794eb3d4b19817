package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// uiKey is the API key of the dashboard tests.
const uiKey = "sk-ui-e2e-0123456789abcdef"

// An attack in a user's message (which becomes the session's title) and
// in a tool call's arguments; run, it would set window.pwned.
const (
	uiTitleAttack = `<script>window.pwned=1</script> summarize the logs`
	uiArgsAttack  = `<img src=x onerror="window.pwned=2">.txt`
)

// seedUIHome writes the state a dashboard shows besides what a real
// turn leaves: a session of another model on another day, and a job
// whose runs delivered once and failed once, and a reply the gateway
// could not send.
func seedUIHome(t *testing.T, h *home) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlitedb.Open(ctx, filepath.Join(h.dir, "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := sqlite.New(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	yesterday := time.Now().Add(-24 * time.Hour)
	if err := st.Create(ctx, &session.Session{ID: "s-report", Source: "telegram", Title: "weekly report", Model: "big-model", StartedAt: yesterday, User: "alice", Tenant: "globex"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Record(ctx, "s-report", session.Usage{InputTokens: 9000, OutputTokens: 700, CostUSD: 0.42},
		&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("write the weekly report about kumquats")}}, CreatedAt: yesterday},
		&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Kumquat sales rose.")}}, CreatedAt: yesterday.Add(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	jobs, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Create(ctx, cron.Job{Name: "nightly-digest", Spec: cron.Spec{Schedule: "0 3 * * *", Prompt: "digest the day"}, Enabled: true, Source: "tool"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []cron.RunResult{
		{SessionID: "s-report", Output: "digest", Deliveries: []cron.Delivery{{Target: "local", OK: true}}},
		{Err: errors.New("the model timed out"), Deliveries: []cron.Delivery{{Target: "telegram:4242", Error: "telegram: chat not found"}}},
	} {
		id, err := jobs.StartRun(ctx, "nightly-digest", time.Now().Add(-2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := jobs.FinishRun(ctx, id, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(h.dir, "gateway"), 0o700); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"time": time.Now().Add(-time.Hour), "chat": "777", "text": "your answer", "error": "telegram: Forbidden: bot was blocked by the user", "attempts": 5})
	h.write("gateway/undelivered.jsonl", string(line)+"\n")
}

// TestDashboardInChromium runs hermes serve on a seeded home, runs a turn
// whose message and tool call carry script, and walks every page of the
// dashboard in headless Chromium: logging in with the key, checking each
// page's data, that no script of the attacks ran, and running a job from
// its button; each page's screenshot is kept.
func TestDashboardInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("HERMES_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("HERMES_REQUIRE_CHROMIUM is set but Chromium is missing: %v", err)
		}
		t.Skip("SKIPPED: the dashboard test needs Chromium, which is missing: run scripts/install-test-deps.sh (or apt-get install chromium)")
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: fmt.Sprintf(`{"path":%q}`, uiArgsAttack)}}},
		llmtest.Reply{Text: "The logs are quiet."},
		llmtest.Reply{Text: "Tonight's digest: nothing happened."},
	)
	h := newHome(t)
	h.write(".env", "HERMES_API_KEY="+uiKey+"\n")
	h.write("config.yaml", `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
api: {enabled: true, listen: "127.0.0.1:0", sessions: all}
`)
	seedUIHome(t, h)
	base := startServeAPI(t, h, uiKey)
	uiTurn(t, base)

	shots := os.Getenv("HERMES_TEST_ARTIFACTS")
	if shots == "" {
		shots = filepath.Join(t.TempDir(), "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("dashboard screenshots in %s", shots)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-proxy-server", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot of %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pwned := func(where string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.pwned !== "undefined"`))
		if err != nil {
			t.Fatal(err)
		}
		if v {
			t.Errorf("%s: the attack's script ran", where)
		}
	}

	run("the login form", chromedp.Navigate(base+"/ui/sessions"), chromedp.WaitVisible(chromedp.ID("key")))
	shot("login")
	run("logging in with a wrong key", chromedp.SendKeys(chromedp.ID("key"), "sk-wrong"), chromedp.Submit(chromedp.ID("key")), chromedp.WaitVisible(chromedp.ID("error")))
	if got := text("#error"); !strings.Contains(got, "not one of api.keys") {
		t.Errorf("a wrong key says %q", got)
	}
	run("logging in", chromedp.SendKeys(chromedp.ID("key"), uiKey), chromedp.Submit(chromedp.ID("key")), chromedp.WaitVisible(chromedp.CSS("nav")))

	for _, p := range []struct {
		name, path, sel string
		wants           []string
	}{
		{"turns", "/ui/turns", "main", []string{"Recent", uiTitleAttack, "read_file", "error", "write the weekly report about kumquats"}},
		{"sessions", "/ui/sessions", "#sessions", []string{uiTitleAttack, "weekly report", "big-model", "$0.42", "alice (globex)"}},
		{"search", "/ui/sessions?q=kumquats", "#hits", []string{"weekly report", "kumquats"}},
		{"jobs", "/ui/jobs", "#jobs", []string{"nightly-digest", "0 3 * * *", "the model timed out", "Run now"}},
		{"deliveries", "/ui/deliveries", "main", []string{"telegram: chat not found", "bot was blocked by the user", "chat 777", "job nightly-digest"}},
		{"costs", "/ui/costs", "main", []string{"big-model", "$0.42", "Per day", "Per model", "alice · $0.42", "globex · $0.42"}},
		{"platforms", "/ui/platforms", "main", []string{"No gateway platform is configured"}},
	} {
		run(p.name, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS(p.sel)))
		got := text("main")
		for _, w := range p.wants {
			if !strings.Contains(got, w) {
				t.Errorf("the %s page does not show %q:\n%s", p.name, w, got)
			}
		}
		pwned(p.name)
		shot(p.name)
	}

	// The API's session, with the attack in its title and tool call.
	run("the session list", chromedp.Navigate(base+"/ui/sessions"), chromedp.WaitVisible(chromedp.ID("sessions")))
	run("the attacked session", chromedp.Click(chromedp.CSS(`#sessions a[href^="/ui/sessions/"]`)), chromedp.WaitVisible(chromedp.ID("session-title")))
	if got := text("#session-title"); got != uiTitleAttack {
		t.Errorf("the title shows as %q, want the text %q", got, uiTitleAttack)
	}
	if got := text(".args"); !strings.Contains(got, `<img src=x onerror=`) {
		t.Errorf("the tool call's arguments show as %q", got)
	}
	pwned("the session")
	shot("session")

	// Run now, from the button (a POST carrying the page's token).
	run("run now", chromedp.Navigate(base+"/ui/jobs"), chromedp.WaitVisible(chromedp.ID("jobs")),
		chromedp.Click(chromedp.CSS(`form[action="/ui/jobs/nightly-digest/run"] button`)), chromedp.WaitVisible(chromedp.ID("notice")))
	if got := text("#notice"); !strings.Contains(got, "Job nightly-digest started now") {
		t.Errorf("after run-now the page says %q", got)
	}
	shot("run-now")

	// A page of another site cannot run a job: its POST carries neither
	// the cookie (SameSite=Strict) nor the token.
	resp, err := http.PostForm(base+"/ui/jobs/nightly-digest/run", url.Values{"csrf": {"guess"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a POST without the login = %d, want 401", resp.StatusCode)
	}
}

// uiTurn runs a turn through the API whose message and tool call carry
// the attacks.
func uiTurn(t *testing.T, base string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "hermes", "messages": []map[string]string{{"role": "user", "content": uiTitleAttack}}})
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+uiKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hermes-Session-Id", "new")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the turn = %d", resp.StatusCode)
	}
}
