package ui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// TestSoakHeapStaysFlat runs a day of the dashboard at accelerated time:
// a minute of the fake clock per step, a new session every step, pages
// loaded all the while and a new login every few steps; the heap in use
// after a collection must end where it began, give or take what the
// store's own caches hold.
func TestSoakHeapStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs a simulated day")
	}
	h := seed(t)
	d := New(h.opt)
	pages := []string{"/ui/", "/ui/sessions", "/ui/sessions/s-attack", "/ui/sessions?q=kumquats", "/ui/jobs", "/ui/deliveries", "/ui/costs", "/ui/platforms"}
	cookie := login(t, d)
	loads := 0
	// Each step is a minute, ten under the race detector.
	stride := 1
	if raceDetector {
		stride = 10
	}
	step := func(i int) {
		h.clock.Advance(time.Duration(stride) * time.Minute)
		h.addTurn(t, session.Session{ID: fmt.Sprintf("soak-%05d", i), Title: fmt.Sprintf("soak session %d", i), Model: "gpt-a", StartedAt: h.clock.Now(), User: fmt.Sprintf("user-%d", i%50)}, "hello kumquats again",
			[]llm.ToolCall{{ID: "c", Name: "terminal", Arguments: `{"command":"date"}`}}, []string{`{"status":"ok"}`}, 0.01)
		if i%10 == 0 {
			cookie = login(t, d)
		}
		for _, p := range []string{pages[i%len(pages)], pages[(i+3)%len(pages)]} {
			req := httptest.NewRequest(http.MethodGet, p, nil)
			req.AddCookie(cookie)
			if w := recorder(d, req); w.Code != http.StatusOK {
				t.Fatalf("step %d: GET %s = %d", i, p, w.Code)
			}
			loads++
		}
	}
	// A warm-up hour fills what is filled once: templates, statements,
	// the store's caches.
	for i := range 60 {
		step(i)
	}
	before := heapInUse()
	const day = 24 * 60
	for i := 60; i < 60+day/stride; i++ {
		step(i)
	}
	after := heapInUse()
	t.Logf("soak: %d simulated minutes, %d page loads, %d sessions made, %d logins kept; HeapInuse after GC %.1f MiB → %.1f MiB",
		day, loads, day/stride+60, d.logins.size(), mib(before), mib(after))
	if d.logins.size() > 256 {
		t.Errorf("%d logins kept, more than the bound", d.logins.size())
	}
	if grew := int64(after) - int64(before); grew > 4<<20 {
		t.Errorf("the heap grew by %.1f MiB over a simulated day, want under 4 MiB", float64(grew)/(1<<20))
	}
}

// login logs in and returns the cookie.
func login(t testing.TB, d *Dashboard) *http.Cookie {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/ui/login", nil)
	req.PostForm = map[string][]string{"key": {testKey}}
	w := recorder(d, req)
	cs := w.Result().Cookies()
	if w.Code != http.StatusSeeOther || len(cs) != 1 {
		t.Fatalf("login = %d", w.Code)
	}
	return cs[0]
}

// heapInUse is HeapInuse after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
