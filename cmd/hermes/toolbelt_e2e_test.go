package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

func TestChatFileTools(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: `{"path":"notes/plan.md","content":"# Plan\nstep one\nstep two\n"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "patch", Arguments: `{"path":"notes/plan.md","old_string":"step two","new_string":"step 2 (数据库迁移)"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{Name: "read_file", Arguments: `{"path":"notes/plan.md"}`},
			{Name: "search_files", Arguments: `{"pattern":"step \\d","path":"."}`},
		}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(h.dir, ".env"))}}},
		llmtest.Reply{Text: "Plan written."},
	)
	out, r := h.chatIn(srv, work, "write a plan")
	if r.code != 0 || out.Final != "Plan written." {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(work, "notes", "plan.md"))
	if err != nil || string(data) != "# Plan\nstep one\nstep 2 (数据库迁移)\n" {
		t.Fatalf("plan.md = %q, %v", data, err)
	}
	reqs := srv.Requests()
	if patch := lastToolResult(t, srv, 2); !strings.Contains(patch, `+step 2 (数据库迁移)`) {
		t.Errorf("patch did not return a diff: %s", patch)
	}
	msgs := reqs[3].Messages
	read, search := msgs[len(msgs)-2].Text(), msgs[len(msgs)-1].Text()
	if !strings.Contains(read, `3|step 2 (数据库迁移)`) {
		t.Errorf("read_file: %s", read)
	}
	if !strings.Contains(search, "plan.md:3: step 2") || strings.Contains(search, "step one") {
		t.Errorf("search_files: %s", search)
	}
	if res := lastToolResult(t, srv, 4); !strings.Contains(res, `"error_code":"denied"`) {
		t.Errorf("writing hermes's own .env was not denied: %s", res)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".env")); err == nil {
		t.Error("the guarded .env was written")
	}
}

func TestChatWebExtractAndURLGuard(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Release notes</title></head><body>
<nav><a href="/">Home</a> <a href="/pricing">Pricing nav link</a></nav>
<article><h1>Release notes</h1><p>Version 2 ships the zebra scheduler, which plans jobs across regions and retries failed runs with backoff.</p>
<p>It also adds a dashboard for operators, with per-job history and alerts delivered to chat groups.</p>
<p>Upgrading needs no migration: existing jobs keep their schedules and their run history.</p></article>
<footer>Copyright footer text</footer></body></html>`)
	}))
	defer page.Close()
	extract := llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "web_extract", Arguments: fmt.Sprintf(`{"urls":[%q]}`, page.URL)}}}

	// By default a local address is refused.
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(extract, llmtest.Reply{Text: "blocked"})
	if _, r := h.chatIn(srv, t.TempDir(), "read it"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "denied") || strings.Contains(res, "zebra") {
		t.Errorf("a 127.0.0.1 URL was fetched: %s", res)
	}

	// With security.allow_private_urls the article comes back as markdown.
	h.write("config.yaml", "security:\n  allow_private_urls: true\n")
	srv.Enqueue(extract, llmtest.Reply{Text: "read"})
	if _, r := h.chatIn(srv, t.TempDir(), "read it"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastToolResult(t, srv, 3)
	if !strings.Contains(res, "zebra scheduler") || strings.Contains(res, "Pricing nav link") || strings.Contains(res, "Copyright footer") {
		t.Errorf("web_extract: %s", res)
	}
}

func TestChatExecuteCodeCallsTools(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("alpha\nbeta\n"), 0o644)
	program := `const f = await tools.read_file({path: "a.txt"});
const s = await tools.terminal({command: "echo from-shell"});
print("lines:", f.total_lines, "shell:", s.output.trim());`
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "execute_code", Arguments: fmt.Sprintf(`{"code":%q}`, program)}}},
		llmtest.Reply{Text: "summarized"},
	)
	out, r := h.chatIn(srv, work, "summarize with code")
	if r.code != 0 || out.Final != "summarized" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Status != "ok" {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	res := lastToolResult(t, srv, 1)
	if !strings.Contains(res, `lines: 2 shell: from-shell`) || !strings.Contains(res, `"tool_calls":2`) {
		t.Errorf("execute_code: %s", res)
	}
	if strings.Contains(res, "alpha") {
		t.Errorf("intermediate results reached the model: %s", res)
	}
}

func TestChatVisionAnalyze(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	// A 1×1 PNG.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
	os.WriteFile(filepath.Join(work, "dot.png"), png, 0o644)
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "vision_analyze", Arguments: `{"image":"dot.png","question":"What colour is the dot?"}`}}},
		llmtest.Reply{Text: "A single white pixel."},
		llmtest.Reply{Text: "It is white."},
	)
	out, r := h.chatIn(srv, work, "look at dot.png")
	if r.code != 0 || out.Final != "It is white." {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	seen := srv.Requests()[1].Messages
	last := seen[len(seen)-1]
	if !last.HasImages() || !strings.Contains(last.Text(), "What colour is the dot?") || !strings.HasPrefix(last.Content[0].ImageURL, "data:image/png;base64,") {
		t.Errorf("the vision call sent %+v", last)
	}
	if res := lastToolResult(t, srv, 2); !strings.Contains(res, "A single white pixel.") {
		t.Errorf("vision_analyze: %s", res)
	}
}

func TestChatHTTPRequest(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method":%q,"user":%q,"items":[1,2,3]}`, r.Method, r.URL.Query().Get("user"))
	}))
	defer api.Close()
	h := newHome(t)
	h.write("config.yaml", "security:\n  allow_private_urls: true\n")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "http_request", Arguments: fmt.Sprintf(`{"method":"POST","url":%q,"query":{"user":"ada"},"json":{"a":1}}`, api.URL+"/orders")}}},
		llmtest.Reply{Text: "three items"},
	)
	if _, r := h.chatIn(srv, t.TempDir(), "call the API"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastToolResult(t, srv, 1)
	for _, want := range []string{`"status":200`, `"method":"POST"`, `"user":"ada"`, `"items":[1,2,3]`} {
		if !strings.Contains(res, want) {
			t.Errorf("http_request result lacks %s: %s", want, res)
		}
	}
}

func TestChatScrubsAndRedactsSecrets(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "terminal:\n  env_passthrough: [DEPLOY_TOKEN]\n")
	h.env = append(h.env, "DEPLOY_TOKEN=passed-through-value", "OTHER_SECRET=hidden-value-123")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(`echo "deploy=$DEPLOY_TOKEN other=$OTHER_SECRET"; echo ghp_abcdefghijklmnopqrstuvwxyz0123456789`)}},
		llmtest.Reply{Text: "ok"},
	)
	if _, r := h.chatIn(srv, t.TempDir(), "show env"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastToolResult(t, srv, 1)
	// The command got the passed-through value; the model still sees
	// only its name.
	if !strings.Contains(res, "deploy=[REDACTED:DEPLOY_TOKEN]") {
		t.Errorf("terminal.env_passthrough did not pass DEPLOY_TOKEN, or its value reached the model: %s", res)
	}
	if strings.Contains(res, "hidden-value-123") || !strings.Contains(res, `other=\n`) {
		t.Errorf("OTHER_SECRET reached the command: %s", res)
	}
	if strings.Contains(res, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || !strings.Contains(res, "[REDACTED:") {
		t.Errorf("a GitHub token in the output was not redacted: %s", res)
	}
}

func TestChatWebSearchSearxng(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "bad request", 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results":[{"title":"Zebra scheduler 2.0","url":"https://example.com/zebra","content":"Release notes for %s"},{"title":"Other","url":"https://example.com/o","content":"x"}]}`, r.URL.Query().Get("q"))
	}))
	defer searx.Close()
	h := newHome(t)
	// A self-hosted SearXNG on localhost works without opening the URL
	// guard: the model never chooses where web_search connects.
	h.write("config.yaml", fmt.Sprintf("web:\n  search_backend: searxng\n  searxng_url: %s\n", searx.URL))
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "web_search", Arguments: `{"query":"zebra scheduler"}`}}},
		llmtest.Reply{Text: "found"},
	)
	if _, r := h.chatIn(srv, t.TempDir(), "search"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastToolResult(t, srv, 1)
	if !strings.Contains(res, `"title":"Zebra scheduler 2.0"`) || !strings.Contains(res, "Release notes for zebra scheduler") {
		t.Errorf("web_search: %s", res)
	}
}

func TestChatVisionUsesAuxiliaryModel(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
	os.WriteFile(filepath.Join(work, "dot.png"), png, 0o644)
	eye := llmtest.New(t)
	eye.Enqueue(llmtest.Reply{Text: "A white dot."})
	h.write("config.yaml", fmt.Sprintf(`providers:
  eyes:
    base_url: %s/v1
    api_mode: chat_completions
    api_key: sk-eyes-0000
auxiliary:
  vision: {provider: eyes, model: eye-1}
`, eye.URL()))
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "vision_analyze", Arguments: `{"image":"dot.png"}`}}},
		llmtest.Reply{Text: "It is a dot."},
	)
	if out, r := h.chatIn(srv, work, "look"); r.code != 0 || out.Final != "It is a dot." {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	if n := len(eye.Requests()); n != 1 || eye.Requests()[0].Model != "eye-1" {
		t.Fatalf("the auxiliary vision model got %d requests", n)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("the main model got %d requests, want 2 (the image went to the auxiliary one)", len(srv.Requests()))
	}
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "A white dot.") {
		t.Errorf("vision_analyze: %s", res)
	}
}

func TestServiceInstallWritesUnit(t *testing.T) {
	h := newHome(t)
	r := h.run([]string{"service", "install"}, "XDG_CONFIG_HOME="+filepath.Join(h.dir, "xdg"))
	unit := filepath.Join(h.dir, "xdg", "systemd", "user", "hermes.service")
	if r.code != 0 || !strings.Contains(r.stdout, "systemctl --user enable --now hermes") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ExecStart=" + hermesBin + " serve", "Environment=HERMES_HOME=" + h.dir, "Restart=on-failure", "KillMode=mixed", "WantedBy=default.target"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("unit lacks %q:\n%s", want, data)
		}
	}
	if r := h.run([]string{"service", "install"}, "XDG_CONFIG_HOME="+filepath.Join(h.dir, "xdg")); r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("a second install replaced the unit: exit %d %s", r.code, r.stderr)
	}
}

// TestDeliverTest sends through a chain: a webhook that always fails, then
// the local file, which always takes it.
func TestDeliverTest(t *testing.T) {
	h := newHome(t)
	var mu sync.Mutex
	var got []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		if strings.Contains(r.URL.Path, "down") {
			http.Error(w, "no", http.StatusBadRequest)
		}
	}))
	defer hook.Close()
	r := h.hermes("deliver", "test", "webhook:"+hook.URL+"/ok", "周报已生成")
	if r.code != 0 || !strings.Contains(r.stdout, "delivered to webhook:") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	if len(got) != 1 || !strings.Contains(got[0], "周报已生成") {
		t.Errorf("the webhook got %q", got)
	}
	mu.Unlock()
	r = h.hermes("deliver", "test", "webhook:"+hook.URL+"/down", "fallback please")
	if r.code != 1 || !strings.Contains(r.stdout, "delivered to local") {
		t.Errorf("a failing webhook: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Each try shows once, and the target given up on says why the
	// message fell through.
	if n := strings.Count(r.stdout+r.stderr, "try 1: failed"); n != 1 || strings.Contains(r.stderr, "level=WARN") ||
		!strings.Contains(r.stdout, "gave up on webhook:") || !strings.Contains(r.stdout, "falls through to the next target") {
		t.Errorf("the tries of a failing webhook (shown %d times):\n%s%s", n, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(h.dir, "deliveries", "test.md"))
	if err != nil || !strings.Contains(string(data), "fallback please") {
		t.Errorf("the local file: %q %v", data, err)
	}
	if r := h.hermes("deliver", "test", "pager:123", "x"); r.code == 0 || !strings.Contains(r.stderr, "wecom:") {
		t.Errorf("an unknown target: exit %d %s", r.code, r.stderr)
	}
}
