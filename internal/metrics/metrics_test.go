package metrics_test

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/metrics"
)

// scrape returns the lines of s's exposition, checking each is one well
// formed sample: a name, optional labels and a value.
func scrape(t *testing.T, s *metrics.Set) map[string]string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q, want the Prometheus text format", ct)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("sample %q has no value", line)
		}
		out[line[:i]] = line[i+1:]
	}
	return out
}

func TestSetWritesHermesMetrics(t *testing.T) {
	s := metrics.New()
	s.Turn("cli", "done", 2)
	s.ToolCall("terminal", "ok", 30*time.Millisecond)
	s.ModelCall("gpt-x", "ok", 2*time.Second)
	s.Usage("gpt-x", "", 100, 20, 0.5)
	s.GatewayMessage("telegram", "in")
	s.GatewaySendFailure("telegram")
	s.Queue("outbound", func() int { return 7 })
	s.SchedulerFire(true, true)
	got := scrape(t, s)
	want := map[string]string{
		`hermes_turns_total{source="cli",outcome="done"}`:                      "1",
		`hermes_agent_iterations_total{source="cli"}`:                          "2",
		`hermes_tool_calls_total{tool="terminal",status="ok"}`:                 "1",
		`hermes_tool_duration_seconds_bucket{tool="terminal",le="0.025"}`:      "0",
		`hermes_tool_duration_seconds_bucket{tool="terminal",le="0.1"}`:        "1",
		`hermes_tool_duration_seconds_count{tool="terminal"}`:                  "1",
		`hermes_model_call_duration_seconds_count{model="gpt-x",outcome="ok"}`: "1",
		`hermes_tokens_total{model="gpt-x",user="local",type="input"}`:         "100",
		`hermes_tokens_total{model="gpt-x",user="local",type="output"}`:        "20",
		`hermes_cost_usd_total{model="gpt-x",user="local"}`:                    "0.5",
		`hermes_gateway_messages_total{platform="telegram",direction="in"}`:    "1",
		`hermes_gateway_send_failures_total{platform="telegram"}`:              "1",
		`hermes_queue_depth{queue="outbound"}`:                                 "7",
		`hermes_scheduler_fires_total`:                                         "1",
		`hermes_scheduler_catchups_total`:                                      "1",
		`hermes_scheduler_failures_total`:                                      "1",
		`hermes_trace_spans_dropped_total`:                                     "0",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"process_resident_memory_bytes", "go_goroutines"} {
		if got[k] == "" || got[k] == "0" {
			t.Errorf("%s = %q, want the process's value", k, got[k])
		}
	}
}

// TestLabelValuesFromOutside feeds label values a model or a client can
// choose: quotes, backslashes, line breaks and control bytes must not
// break the exposition (a panic, or a line a scraper rejects).
func TestLabelValuesFromOutside(t *testing.T) {
	s := metrics.New()
	for _, name := range []string{`a"b`, `c\d`, "e\nf", "g\x00h\x1b[31m", "} 1\nevil_total 9", strings.Repeat("x", 500), "\xff\xfe"} {
		s.ToolCall(name, "error", time.Millisecond)
	}
	got := scrape(t, s)
	if _, ok := got["evil_total"]; ok {
		t.Error("a tool name injected a sample of its own")
	}
	for k := range got {
		if strings.ContainsAny(k, "\x00\x1b") {
			t.Errorf("sample %q keeps a control byte", k)
		}
	}
	if got[`hermes_tool_calls_total{tool="a\"b",status="error"}`] != "1" {
		t.Errorf("quote not escaped: %v", got)
	}
	if got[`hermes_tool_calls_total{tool="e\nf",status="error"}`] != "1" {
		t.Errorf("line break not escaped")
	}
}

// TestSeriesAreBounded makes up more tool names than MaxSeries, as a
// model inventing names would: the family stops growing and the rest is
// counted under "other".
func TestSeriesAreBounded(t *testing.T) {
	s := metrics.New()
	for i := range metrics.MaxSeries + 100 {
		s.ToolCall(fmt.Sprintf("made_up_%d", i), "error", time.Millisecond)
	}
	got := scrape(t, s)
	n := 0
	for k := range got {
		if strings.HasPrefix(k, "hermes_tool_calls_total{") {
			n++
		}
	}
	if n != metrics.MaxSeries+1 {
		t.Errorf("%d series of hermes_tool_calls_total, want %d", n, metrics.MaxSeries+1)
	}
	if got[`hermes_tool_calls_total{tool="other",status="other"}`] != "100" {
		t.Errorf("other = %q, want 100", got[`hermes_tool_calls_total{tool="other",status="other"}`])
	}
}

func TestSetsAreSeparate(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	a.Turn("cli", "done", 1)
	if got := scrape(t, b)[`hermes_turns_total{source="cli",outcome="done"}`]; got != "" {
		t.Errorf("a turn of one Set shows in another: %q", got)
	}
}

// TestGaugeReplaced registers a queue twice, as a gateway started again
// does: the scrape reads the second.
func TestGaugeReplaced(t *testing.T) {
	s := metrics.New()
	s.Queue("outbound", func() int { return 1 })
	s.Queue("outbound", func() int { return 2 })
	if got := scrape(t, s)[`hermes_queue_depth{queue="outbound"}`]; got != "2" {
		t.Errorf("queue = %q, want the second registration's 2", got)
	}
}

func TestNilSetCountsNothing(t *testing.T) {
	var s *metrics.Set
	s.Turn("cli", "done", 1)
	s.ToolCall("t", "ok", time.Second)
	s.Usage("m", "", 1, 1, 1)
	s.Queue("q", func() int { return 1 })
	s.SchedulerFire(true, true)
}

// TestUsageTotalsTravel moves a job process's usage to serve's Set.
func TestUsageTotalsTravel(t *testing.T) {
	job, serve := metrics.New(), metrics.New()
	job.Usage("m", "", 10, 1, 0.25)
	job.Usage("m", "", 5, 2, 0.25)
	job.Usage("m", "ana", 7, 0, 0)
	totals := job.UsageTotals()
	want := []metrics.UsageTotal{{Model: "m", User: "ana", Input: 7}, {Model: "m", User: "local", Input: 15, Output: 3, Cost: 0.5}}
	if fmt.Sprint(totals) != fmt.Sprint(want) {
		t.Fatalf("totals = %+v, want %+v", totals, want)
	}
	serve.AddUsage(totals)
	got := scrape(t, serve)
	if got[`hermes_tokens_total{model="m",user="local",type="input"}`] != "15" || got[`hermes_tokens_total{model="m",user="ana",type="input"}`] != "7" || got[`hermes_cost_usd_total{model="m",user="local"}`] != "0.5" {
		t.Errorf("serve's metrics = %v", got)
	}
}
