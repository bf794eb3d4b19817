package observe_test

import (
	"bytes"
	"context"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/observe"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/trace"
	"github.com/hermes-go/hermes/internal/trace/tracetest"
)

// fakeProvider answers every call with resp, or fails with err, taking
// took on clk.
type fakeProvider struct {
	clk  *clock.Fake
	took time.Duration
	resp *llm.Response
	err  error
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		f.clk.Advance(f.took)
		if !yield(llm.Event{Kind: llm.EventText, Text: "hi"}) {
			return
		}
		if f.err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: f.err})
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: f.resp})
	}
}

// scrape is the exposition of m, sample by sample.
func scrape(m *metrics.Set) map[string]string {
	var b bytes.Buffer
	m.WritePrometheus(&b)
	out := map[string]string{}
	for _, line := range strings.Split(b.String(), "\n") {
		if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
			out[line[:i]] = line[i+1:]
		}
	}
	return out
}

// runTurn plays a turn with one model call that asks for a tool and one
// tool call, as the engine would report it.
func runTurn(t *testing.T, o *observe.Observer, p llm.Provider, toolResult tool.Result) {
	t.Helper()
	ctx, w := o.Turn(context.Background(), engine.TurnInfo{SessionID: "s-1", Source: "api", Model: "gpt-test"})
	for range w.Provider(p).Stream(ctx, &llm.Request{Model: "gpt-test"}) {
	}
	call := llm.ToolCall{ID: "call_1", Name: "terminal"}
	w.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Index: 0, Call: call}})
	w.Event(agent.Event{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Index: 0, Call: call, Result: toolResult, Duration: 40 * time.Millisecond}})
	w.End(&agent.Result{Stopped: agent.StopDone, Iterations: 2, Usage: llm.Usage{InputTokens: 100, OutputTokens: 7}})
}

func TestTurnMetrics(t *testing.T) {
	clk := clock.NewFake(time.Unix(1e9, 0))
	m := metrics.New()
	o := observe.New(observe.Options{Metrics: m, Clock: clk, Prices: map[string]llm.Price{"gpt-test": {InputPerM: 1, OutputPerM: 2}}})
	p := &fakeProvider{clk: clk, took: 1500 * time.Millisecond,
		resp: &llm.Response{Model: "gpt-test", Usage: llm.Usage{InputTokens: 1_000_000, OutputTokens: 500_000}}}
	runTurn(t, o, p, tool.OK("done"))
	got := scrape(m)
	for k, v := range map[string]string{
		`hermes_turns_total{source="api",outcome="done"}`:                                   "1",
		`hermes_agent_iterations_total{source="api"}`:                                       "2",
		`hermes_tool_calls_total{tool="terminal",status="ok"}`:                              "1",
		`hermes_tool_duration_seconds_bucket{tool="terminal",le="0.025"}`:                   "0",
		`hermes_tool_duration_seconds_bucket{tool="terminal",le="0.1"}`:                     "1",
		`hermes_model_call_duration_seconds_bucket{model="gpt-test",outcome="ok",le="1"}`:   "0",
		`hermes_model_call_duration_seconds_bucket{model="gpt-test",outcome="ok",le="2.5"}`: "1",
		`hermes_tokens_total{model="gpt-test",user="local",type="input"}`:                   "1000000",
		`hermes_tokens_total{model="gpt-test",user="local",type="output"}`:                  "500000",
		`hermes_cost_usd_total{model="gpt-test",user="local"}`:                              "2",
	} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// tracing is a collector and a tracer exporting to it when closed.
func tracing(t *testing.T) (*tracetest.Collector, *trace.Tracer) {
	t.Helper()
	c := tracetest.New()
	t.Cleanup(c.Close)
	tr, err := trace.New(trace.Options{Endpoint: c.URL, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return c, tr
}

func TestTurnSpans(t *testing.T) {
	c, tr := tracing(t)
	clk := clock.NewFake(time.Unix(1e9, 0))
	o := observe.New(observe.Options{Tracer: tr, Clock: clk, Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED]") }})
	p := &fakeProvider{clk: clk, resp: &llm.Response{Model: "gpt-test-2026", ID: "resp_1", FinishReason: llm.FinishToolCalls,
		Usage: llm.Usage{InputTokens: 11, OutputTokens: 3}}}
	runTurn(t, o, p, tool.Fail(tool.CodeTimeout, "curl -H 'Bearer sk-secret' took too long"))
	tr.Close(context.Background())
	spans := map[string]tracetest.Span{}
	for _, s := range c.Spans() {
		spans[s.Attrs["gen_ai.operation.name"]] = s
	}
	turn, chat, call := spans["invoke_agent"], spans["chat"], spans["execute_tool"]
	if turn.SpanID == "" || chat.SpanID == "" || call.SpanID == "" {
		t.Fatalf("spans = %+v, want invoke_agent, chat and execute_tool", spans)
	}
	if chat.ParentSpanID != turn.SpanID || call.ParentSpanID != turn.SpanID || turn.ParentSpanID != "" {
		t.Errorf("parents: chat %s, tool %s, want the turn %s", chat.ParentSpanID, call.ParentSpanID, turn.SpanID)
	}
	want := map[*tracetest.Span]map[string]string{
		&turn: {"gen_ai.conversation.id": "s-1", "gen_ai.request.model": "gpt-test", "gen_ai.usage.input_tokens": "100", "gen_ai.usage.output_tokens": "7", "gen_ai.agent.name": "hermes"},
		&chat: {"gen_ai.request.model": "gpt-test", "gen_ai.response.model": "gpt-test-2026", "gen_ai.usage.input_tokens": "11",
			"gen_ai.usage.output_tokens": "3", "gen_ai.conversation.id": "s-1", "gen_ai.provider.name": "fake", "gen_ai.response.finish_reasons": "tool_calls"},
		&call: {"gen_ai.tool.name": "terminal", "gen_ai.tool.call.id": "call_1", "gen_ai.conversation.id": "s-1", "error.type": "timeout"},
	}
	for s, attrs := range want {
		for k, v := range attrs {
			if s.Attrs[k] != v {
				t.Errorf("%s: %s = %q, want %q", s.Name, k, s.Attrs[k], v)
			}
		}
	}
	if chat.Name != "chat gpt-test" || call.Name != "execute_tool terminal" || chat.Kind != int(trace.KindClient) {
		t.Errorf("names %q %q kind %d", chat.Name, call.Name, chat.Kind)
	}
	if call.StatusCode != 2 || strings.Contains(call.StatusMessage, "sk-secret") {
		t.Errorf("failed tool span status %d %q, want an error without the secret", call.StatusCode, call.StatusMessage)
	}
	if turn.StatusCode != 1 || chat.StatusCode != 1 {
		t.Errorf("status of turn %d and chat %d, want ok", turn.StatusCode, chat.StatusCode)
	}
}

// TestFailedModelCall counts the error and marks the chat span with the
// error's kind.
func TestFailedModelCall(t *testing.T) {
	c, tr := tracing(t)
	clk := clock.NewFake(time.Unix(1e9, 0))
	m := metrics.New()
	o := observe.New(observe.Options{Tracer: tr, Metrics: m, Clock: clk})
	p := &fakeProvider{clk: clk, err: &llm.Error{Kind: llm.ErrRateLimited, Message: "slow down"}}
	ctx, w := o.Turn(context.Background(), engine.TurnInfo{SessionID: "s", Source: "cli", Model: "m"})
	for range w.Provider(p).Stream(ctx, &llm.Request{Model: "m"}) {
	}
	w.End(&agent.Result{Stopped: agent.StopError, Iterations: 1, Err: p.err})
	tr.Close(context.Background())
	if got := scrape(m)[`hermes_model_call_duration_seconds_count{model="m",outcome="error"}`]; got != "1" {
		t.Errorf("failed calls = %q, want 1", got)
	}
	if got := scrape(m)[`hermes_turns_total{source="cli",outcome="error"}`]; got != "1" {
		t.Errorf("failed turns = %q, want 1", got)
	}
	for _, s := range c.Spans() {
		if s.StatusCode != 2 || s.Attrs["error.type"] != "rate_limited" {
			t.Errorf("%s: status %d error.type %q, want 2 rate_limited", s.Name, s.StatusCode, s.Attrs["error.type"])
		}
	}
}

// TestStreamLeftEarly stops reading the stream half-way, as an
// interrupted turn does: the call still counts and its span ends.
func TestStreamLeftEarly(t *testing.T) {
	clk := clock.NewFake(time.Unix(1e9, 0))
	m := metrics.New()
	o := observe.New(observe.Options{Metrics: m, Clock: clk})
	p := &fakeProvider{clk: clk, resp: &llm.Response{}}
	ctx, w := o.Turn(context.Background(), engine.TurnInfo{Model: "m"})
	for range w.Provider(p).Stream(ctx, &llm.Request{Model: "m"}) {
		break
	}
	if got := scrape(m)[`hermes_model_call_duration_seconds_count{model="m",outcome="error"}`]; got != "1" {
		t.Errorf("abandoned calls = %q, want 1", got)
	}
}

// TestUserLabels labels a user's tokens and cost with their id and their
// turn's span with user.id.
func TestUserLabels(t *testing.T) {
	c, tr := tracing(t)
	clk := clock.NewFake(time.Unix(1e9, 0))
	m := metrics.New()
	o := observe.New(observe.Options{Tracer: tr, Metrics: m, Clock: clk, Prices: map[string]llm.Price{"m": {InputPerM: 1}}})
	p := &fakeProvider{clk: clk, resp: &llm.Response{Usage: llm.Usage{InputTokens: 2_000_000}}}
	ctx, w := o.Turn(context.Background(), engine.TurnInfo{SessionID: "s", Source: "api", Model: "m", User: "ana"})
	for range w.Provider(p).Stream(ctx, &llm.Request{Model: "m"}) {
	}
	w.End(&agent.Result{Stopped: agent.StopDone, Iterations: 1})
	tr.Close(context.Background())
	got := scrape(m)
	if got[`hermes_tokens_total{model="m",user="ana",type="input"}`] != "2000000" || got[`hermes_cost_usd_total{model="m",user="ana"}`] != "2" {
		t.Errorf("ana's usage not labelled with her id: %v", got)
	}
	for _, s := range c.Spans() {
		if s.Attrs["gen_ai.operation.name"] == "invoke_agent" && s.Attrs["user.id"] != "ana" {
			t.Errorf("turn span user.id = %q, want ana", s.Attrs["user.id"])
		}
	}
}
