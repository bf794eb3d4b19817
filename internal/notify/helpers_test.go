package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// fixedNow is the time every test target sees.
var fixedNow = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// sleeps is the tests' clock: a fake whose time stays at fixedNow and
// whose Sleep records the wait the chain asked for instead of waiting.
type sleeps struct {
	*clock.Fake
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) Sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// testConfig returns a Config with a temporary home and a fake clock.
func testConfig(t *testing.T) (Config, *sleeps) {
	t.Helper()
	s := &sleeps{Fake: clock.NewFake(fixedNow)}
	return Config{
		Home:   t.TempDir(),
		Logger: slog.New(slog.DiscardHandler),
		Clock:  s,
	}, s
}

// captured is one request a platform server received.
type captured struct {
	Method string
	Path   string
	Query  map[string][]string
	Header http.Header
	Body   []byte
}

// platform is a local HTTP server that records requests and answers each
// with the next scripted reply (the last one repeats).
type platform struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []captured
	replies []reply
}

type reply struct {
	status int
	header map[string]string
	body   string
}

func newPlatform(t *testing.T, replies ...reply) *platform {
	t.Helper()
	p := &platform{replies: replies}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.reqs = append(p.reqs, captured{r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone(), body})
		rep := p.replies[min(len(p.reqs), len(p.replies))-1]
		p.mu.Unlock()
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *platform) requests() []captured {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]captured(nil), p.reqs...)
}

// jsonBody decodes a captured body into a generic map.
func jsonBody(t *testing.T, c captured) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v: %s", err, c.Body)
	}
	return m
}

// mustParse parses a spec or fails the test.
func mustParse(t *testing.T, spec string, cfg Config) Target {
	t.Helper()
	tg, err := Parse(spec, cfg)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	return tg
}

// readLocal returns the local deliveries file for name ("" if absent).
func readLocal(t *testing.T, cfg Config, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cfg.Home, "deliveries", name+".md"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertNoSecret fails when any secret shows in the report or in text.
func assertNoSecret(t *testing.T, rep Report, secrets ...string) {
	t.Helper()
	b, _ := json.Marshal(rep)
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Errorf("secret %q appears in the report: %s", s, b)
		}
		if err := rep.Err(); err != nil && strings.Contains(err.Error(), s) {
			t.Errorf("secret %q appears in Report.Err: %v", s, err)
		}
	}
}

// decodeQP decodes a quoted-printable body.
func decodeQP(t *testing.T, b []byte) string {
	t.Helper()
	out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
