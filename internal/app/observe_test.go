package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/session"
)

// openHome opens an App on a new home with config.yaml text.
func openHome(tb testing.TB, text string) *App {
	tb.Helper()
	home := tb.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	l, err := config.Load(loadOptions(home))
	if err != nil {
		tb.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Config: l})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Close)
	return a
}

// BenchmarkMetricsScrape scrapes /metrics of a home with 1,000 sessions
// of 10 messages each, after turns that used 40 tools and 4 models.
func BenchmarkMetricsScrape(b *testing.B) {
	a := openHome(b, "memory: {long_term: false}\n")
	ctx := context.Background()
	for i := range 1000 {
		s := &session.Session{Source: "api", Model: "m"}
		if err := a.Sessions.Create(ctx, s); err != nil {
			b.Fatal(err)
		}
		msgs := make([]*session.Message, 10)
		for j := range msgs {
			msgs[j] = &session.Message{SessionID: s.ID, Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: fmt.Sprintf("message %d of %d", j, i)}}}}
			if j%2 == 1 {
				msgs[j].Role = llm.RoleAssistant
			}
		}
		if err := a.Sessions.Record(ctx, s.ID, session.Usage{InputTokens: 10}, msgs...); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 40 {
		a.Metrics.ToolCall(fmt.Sprintf("tool_%d", i), "ok", time.Duration(i)*time.Millisecond)
		a.Metrics.ModelCall(fmt.Sprintf("model_%d", i%4), "ok", time.Second)
		a.Metrics.Usage(fmt.Sprintf("model_%d", i%4), "", 100, 10, 0.01)
		a.Metrics.Turn("api", "done", 2)
	}
	b.ResetTimer()
	for b.Loop() {
		a.Metrics.WritePrometheus(io.Discard)
	}
}

// TestSchedulerMetrics counts a job's on-time fire, a catch-up after
// hermes was down, and a failed run.
func TestSchedulerMetrics(t *testing.T) {
	a := openHome(t, "memory: {long_term: false}\n")
	clk := clock.NewFake(t0)
	a.opts.Clock = clk
	fail := false
	r := a.countedRunner(cron.RunnerFunc(func(context.Context, cron.Job, time.Time) cron.RunResult {
		if fail {
			return cron.RunResult{Err: fmt.Errorf("the script exited 1")}
		}
		return cron.RunResult{}
	}))
	job := cron.Job{Name: "daily", Spec: cron.Spec{Schedule: "0 9 * * *", Timezone: "UTC"}}
	at := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	clk.Set(at.Add(10 * time.Second))
	r.Run(context.Background(), job, at)
	clk.Set(at.Add(5 * time.Hour))
	fail = true
	r.Run(context.Background(), job, at)
	rec := httptest.NewRecorder()
	a.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{"hermes_scheduler_fires_total 2\n", "hermes_scheduler_catchups_total 1\n", "hermes_scheduler_failures_total 1\n", `hermes_queue_depth{queue="tasks"} 0` + "\n"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, rec.Body.String())
		}
	}
}

// TestOTLPHeadersAreSecrets writes a collector's key in config.yaml, not
// in .env: tool results and span messages still have it redacted.
func TestOTLPHeadersAreSecrets(t *testing.T) {
	a := openHome(t, "memory: {long_term: false}\nobservability: {otlp_endpoint: \"http://127.0.0.1:1\", otlp_headers: {X-Api-Key: literal-collector-key-4242}}\n")
	if got := a.Redactor().Redact("the key is literal-collector-key-4242."); strings.Contains(got, "literal-collector-key-4242") {
		t.Errorf("Redact = %q, want the key hidden", got)
	}
}

// TestJobProcessUsageCounted: what a job process reports its turns used
// is counted in serve's metrics.
func TestJobProcessUsageCounted(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "job")
	line := `{"status":"ok","session_id":"s1","usage":[{"model":"m","user":"local","input_tokens":40,"output_tokens":4,"cost_usd":0.5}]}`
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho '"+line+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	p := &ProcRunner{Exe: exe, Stderr: io.Discard, Log: slog.New(slog.DiscardHandler), Metrics: m}
	if res := p.Run(context.Background(), cron.Job{Name: "brief"}, time.Now()); res.Err != nil {
		t.Fatal(res.Err)
	}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`hermes_tokens_total{model="m",user="local",type="input"} 40`, `hermes_cost_usd_total{model="m",user="local"} 0.5`} {
		if !strings.Contains(rec.Body.String(), want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
}
