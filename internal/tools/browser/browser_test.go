package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

const formPage = `<!doctype html><title>Form</title>
<h1>Greeter</h1>
<p>Type a name and press the button.</p>
<label for="name">Your name</label> <input id="name" placeholder="e.g. Ada">
<button id="greet" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '!'">Greet</button>
<p id="out">Nobody greeted yet</p>
<a href="/second">Go to the second page</a>`

const secondPage = `<!doctype html><title>Second</title><h1>Second page</h1><p>You made it.</p>`

const consolePage = `<!doctype html><title>Console</title><p>logging</p>
<script>console.log("hello from the page"); console.warn("careful", 42);
setTimeout(() => { throw new Error("boom in a timer") }, 0);</script>`

// site serves the test pages.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/form", page(formPage))
	mux.HandleFunc("/second", page(secondPage))
	mux.HandleFunc("/console", page(consolePage))
	mux.HandleFunc("/long", page("<!doctype html><title>Long</title>"+strings.Repeat("<p>"+strings.Repeat("word ", 30)+"</p>", 400)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newManager returns a Manager for the tests, skipping (loudly) when this
// machine has no Chromium, or failing when HERMES_REQUIRE_CHROMIUM is set,
// so CI that installed it cannot pass without running these tests.
func newManager(t *testing.T, g *netguard.Guard) *Manager {
	t.Helper()
	m := New(Options{Guard: g, ScreenshotDir: t.TempDir()})
	if err := m.Available(); err != nil {
		if os.Getenv("HERMES_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("HERMES_REQUIRE_CHROMIUM is set but Chromium is missing: %v", err)
		}
		t.Skipf("SKIPPED: the browser tests need Chromium, which is missing: %v; run scripts/install-test-deps.sh (or apt-get install chromium) to run them", err)
	}
	t.Cleanup(m.Close)
	return m
}

// call runs the named tool in session "s1" and returns its result.
func call(t *testing.T, m *Manager, name string, args any) (any, error) {
	t.Helper()
	return callIn(t, m, "s1", name, args)
}

// callIn runs the named tool in the given session.
func callIn(t *testing.T, m *Manager, session, name string, args any) (any, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range m.Tools() {
		if tl.Spec().Name == name {
			ctx, cancel := context.WithTimeout(context.Background(), tl.Spec().Timeout)
			defer cancel()
			ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: session})
			return tl.Call(ctx, raw)
		}
	}
	t.Fatalf("no tool %s", name)
	return nil, nil
}

// mustPage runs a tool that returns a Page and fails the test on error.
func mustPage(t *testing.T, m *Manager, name string, args any) Page {
	t.Helper()
	v, err := call(t, m, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	switch p := v.(type) {
	case Page:
		return p
	case ScrollResult:
		return p.Page
	}
	t.Fatalf("%s returned %T", name, v)
	return Page{}
}

// refOf returns the ref on the first snapshot line containing what.
func refOf(t *testing.T, snap, what string) string {
	t.Helper()
	for line := range strings.SplitSeq(snap, "\n") {
		if strings.Contains(line, what) {
			if i := strings.Index(line, "[ref=@"); i >= 0 {
				return strings.TrimSuffix(line[i+len("[ref="):], "]")
			}
		}
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", what, snap)
	return ""
}

func wantCode(t *testing.T, err error, code tool.Code) *tool.Error {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != code {
		t.Fatalf("got error %v, want code %s", err, code)
	}
	return te
}

func TestFormTypeClickAndNavigate(t *testing.T) {
	srv := site(t)
	m := newManager(t, &netguard.Guard{AllowPrivate: true})

	p := mustPage(t, m, "browser_navigate", map[string]any{"url": srv.URL + "/form"})
	if p.Title != "Form" || p.Status != 200 || !strings.Contains(p.Snapshot, `heading "Greeter" [level=1]`) {
		t.Fatalf("navigate: %+v", p)
	}
	input := refOf(t, p.Snapshot, `textbox "Your name"`)
	button := refOf(t, p.Snapshot, `button "Greet"`)
	if !strings.Contains(p.Snapshot, `placeholder="e.g. Ada"`) {
		t.Errorf("snapshot lacks the placeholder:\n%s", p.Snapshot)
	}

	p = mustPage(t, m, "browser_type", map[string]any{"ref": input, "text": "Grace"})
	if !strings.Contains(p.Snapshot, `value="Grace"`) {
		t.Errorf("typed value missing:\n%s", p.Snapshot)
	}
	p = mustPage(t, m, "browser_type", map[string]any{"ref": input, "text": "Ada"})
	p = mustPage(t, m, "browser_click", map[string]any{"ref": button})
	if !strings.Contains(p.Snapshot, "Hello, Ada!") {
		t.Fatalf("click did not change the text (type must replace, not append):\n%s", p.Snapshot)
	}

	// Refs stay stable on a re-snapshot of the same page.
	p = mustPage(t, m, "browser_snapshot", map[string]any{"full": true})
	if got := refOf(t, p.Snapshot, `button "Greet"`); got != button {
		t.Errorf("button ref changed from %s to %s", button, got)
	}

	p = mustPage(t, m, "browser_click", map[string]any{"ref": refOf(t, p.Snapshot, "second page")})
	if !strings.HasSuffix(p.URL, "/second") || p.Title != "Second" || !strings.Contains(p.Snapshot, "You made it.") {
		t.Fatalf("link click: %+v", p)
	}
	p = mustPage(t, m, "browser_back", map[string]any{})
	if !strings.HasSuffix(p.URL, "/form") || p.Title != "Form" {
		t.Fatalf("back: %+v", p)
	}

	_, err := call(t, m, "browser_click", map[string]any{"ref": "@e999"})
	te := wantCode(t, err, tool.CodeNotFound)
	if !strings.Contains(te.Message, "browser_snapshot") {
		t.Errorf("not_found message should point at a new snapshot: %s", te.Message)
	}
	_, err = call(t, m, "browser_click", map[string]any{"ref": "button"})
	wantCode(t, err, tool.CodeInvalidArguments)

	v, err := call(t, m, "browser_scroll", map[string]any{"direction": "down"})
	if err != nil {
		t.Fatal(err)
	}
	if s := v.(ScrollResult); s.ViewportHeight == 0 {
		t.Errorf("scroll: %+v", s)
	}
	if _, err := call(t, m, "browser_press", map[string]any{"key": "Tab"}); err != nil {
		t.Errorf("press Tab: %v", err)
	}
}

func TestConsoleAndScreenshot(t *testing.T) {
	srv := site(t)
	m := newManager(t, &netguard.Guard{AllowPrivate: true})
	mustPage(t, m, "browser_navigate", map[string]any{"url": srv.URL + "/console"})

	var msgs []ConsoleMessage
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		v, err := call(t, m, "browser_console", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, v.(ConsoleResult).Messages...)
		if len(msgs) >= 3 {
			break
		}
	}
	var all []string
	for _, c := range msgs {
		all = append(all, c.Type+": "+c.Text)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"log: hello from the page", "warning: careful 42", "exception: ", "boom in a timer"} {
		if !strings.Contains(joined, want) {
			t.Errorf("console lacks %q:\n%s", want, joined)
		}
	}
	v, _ := call(t, m, "browser_console", map[string]any{})
	if n := len(v.(ConsoleResult).Messages); n != 0 {
		t.Errorf("console not cleared: %d messages", n)
	}

	v, err := call(t, m, "browser_screenshot", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	s := v.(Screenshot)
	b64, ok := strings.CutPrefix(s.ImageDataURL, "data:image/png;base64,")
	if !ok {
		t.Fatalf("image_data_url: %.40q", s.ImageDataURL)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != s.Width || b.Dy() != s.Height || s.Width < 100 || s.Bytes != len(data) {
		t.Errorf("screenshot %+v vs image %v", s, b)
	}
	if f, err := os.ReadFile(s.Path); err != nil || !bytes.Equal(f, data) {
		t.Errorf("screenshot file %s: %v", s.Path, err)
	}

	p := mustPage(t, m, "browser_navigate", map[string]any{"url": srv.URL + "/long"})
	if !p.Truncated || !strings.Contains(p.Snapshot, "[… snapshot cut at 20000 of") || len([]rune(p.Snapshot)) > snapshotLimit+200 {
		t.Errorf("long page not capped: truncated=%v, %d characters, ends %q", p.Truncated, len([]rune(p.Snapshot)), p.Snapshot[len(p.Snapshot)-120:])
	}
	v, err = call(t, m, "browser_screenshot", map[string]any{"full_page": true})
	if err != nil {
		t.Fatal(err)
	}
	if full := v.(Screenshot); full.Height <= s.Height {
		t.Errorf("full-page screenshot is %dx%d, no taller than the screen's %d", full.Width, full.Height, s.Height)
	}
}

func TestGuard(t *testing.T) {
	var hits, publicHits atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(private.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Page</title><p>public</p><img src="/pixel.png"><img src="%s/pixel.png"><script>fetch(%q)</script>`, private.URL, private.URL+"/api")
	})
	mux.HandleFunc("/pixel.png", func(w http.ResponseWriter, _ *http.Request) { publicHits.Add(1) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/secret", http.StatusFound)
	})
	public := httptest.NewServer(mux)
	t.Cleanup(public.Close)
	pu, _ := url.Parse(public.URL)
	allowed := netip.MustParseAddrPort(pu.Host)
	m := newManager(t, &netguard.Guard{Allow: func(ap netip.AddrPort) bool { return ap == allowed }})

	_, err := call(t, m, "browser_navigate", map[string]any{"url": private.URL + "/secret"})
	te := wantCode(t, err, tool.CodeDenied)
	if !strings.Contains(te.Message, "loopback") {
		t.Errorf("denial should say why: %s", te.Message)
	}
	_, err = call(t, m, "browser_navigate", map[string]any{"url": public.URL + "/redirect"})
	wantCode(t, err, tool.CodeDenied)

	p := mustPage(t, m, "browser_navigate", map[string]any{"url": public.URL + "/page"})
	if !strings.Contains(p.Snapshot, "public") {
		t.Errorf("allowed page: %+v", p)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Errorf("the refused server got %d requests from the page", n)
	}
	if publicHits.Load() == 0 {
		t.Error("the page's image from the admitted server never loaded, so the check above proves nothing")
	}
	_, err = call(t, m, "browser_navigate", map[string]any{"url": "file:///etc/passwd"})
	wantCode(t, err, tool.CodeDenied)
}

func TestSessionsHaveOwnTabs(t *testing.T) {
	srv := site(t)
	m := newManager(t, &netguard.Guard{AllowPrivate: true})
	var wg sync.WaitGroup
	titles := map[string]string{"a": "/form", "b": "/second"}
	for session, path := range titles {
		wg.Go(func() {
			if _, err := callIn(t, m, session, "browser_navigate", map[string]any{"url": srv.URL + path}); err != nil {
				t.Errorf("session %s: %v", session, err)
			}
		})
	}
	wg.Wait()
	for session, want := range map[string]string{"a": "Form", "b": "Second"} {
		v, err := callIn(t, m, session, "browser_snapshot", map[string]any{})
		if err != nil || v.(Page).Title != want {
			t.Errorf("session %s sees %+v, %v; want title %s", session, v, err, want)
		}
	}
	m.CloseSession("a")
	v, err := callIn(t, m, "a", "browser_snapshot", map[string]any{})
	if err != nil || v.(Page).Title == "Form" {
		t.Errorf("after CloseSession the session should start on a fresh tab: %+v, %v", v, err)
	}
}

func TestParseKeyAndRef(t *testing.T) {
	for _, k := range []string{"Enter", "enter", "Tab", "Escape", "ArrowDown", "PageDown", "a", "Control+a", "Shift+Tab", "+"} {
		if _, _, err := parseKey(k); err != nil {
			t.Errorf("parseKey(%q): %v", k, err)
		}
	}
	if _, mods, _ := parseKey("Control+Shift+k"); len(mods) != 2 {
		t.Errorf("modifiers: %v", mods)
	}
	for _, k := range []string{"Hyper+a", "NoSuchKey", ""} {
		if _, _, err := parseKey(k); err == nil {
			t.Errorf("parseKey(%q) accepted", k)
		}
	}
	for _, r := range []string{"@e3", "e3", "ref=e3", "[ref=@e3]"} {
		if sel, name, err := refSelector(r); err != nil || sel != `[data-hermes-ref="e3"]` || name != "@e3" {
			t.Errorf("refSelector(%q) = %q %q %v", r, sel, name, err)
		}
	}
	for _, r := range []string{"", "e", "3", "e3]\"", "#id"} {
		if _, _, err := refSelector(r); err == nil {
			t.Errorf("refSelector(%q) accepted", r)
		}
	}
}

func TestUnavailableWithoutChromium(t *testing.T) {
	m := New(Options{ExecPath: "/nonexistent/chromium"})
	if err := m.Available(); err == nil || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("Available: %v", err)
	}
	for _, tl := range m.Tools() {
		s := tl.Spec()
		if s.Toolset != "browser" || s.ParallelSafe || s.Description == "" || !json.Valid(s.Parameters) {
			t.Errorf("spec %s: %+v", s.Name, s)
		}
	}
	_, err := m.Tools()[0].Call(context.Background(), json.RawMessage(`{"url":"https://example.com"}`))
	wantCode(t, err, tool.CodeUpstreamUnavailable)
}
