// Package observe turns what the engine reports of each turn into metrics
// and trace spans: a turn, its model calls and its tool calls, with the
// OpenTelemetry semantic conventions for generative AI (gen_ai.*). It
// watches the same event stream every front renders, so the loop itself
// knows nothing of metrics or tracing.
package observe

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/trace"
)

// Options configure an Observer; every field may be left empty.
type Options struct {
	// Metrics counts turns, calls, tokens and cost; nil counts nothing.
	Metrics *metrics.Set
	// Tracer records the spans; nil records none.
	Tracer *trace.Tracer
	// Prices override the built-in price table, for the cost metric.
	Prices map[string]llm.Price
	// Redact hides secrets in the error messages spans carry; nil keeps
	// only the error's kind.
	Redact func(string) string
	Clock  clock.Clock
}

// Observer is an engine.Observer.
type Observer struct {
	opt Options
}

// New returns an Observer for opt.
func New(opt Options) *Observer {
	opt.Clock = clock.OrReal(opt.Clock)
	if opt.Redact == nil {
		opt.Redact = func(string) string { return "" }
	}
	return &Observer{opt: opt}
}

// The gen_ai.operation.name values hermes's spans carry.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
)

// Turn starts watching a turn: its span, named after the agent, is the
// parent of the turn's model and tool calls.
func (o *Observer) Turn(ctx context.Context, t engine.TurnInfo) (context.Context, engine.TurnObserver) {
	agentName := t.Agent
	if agentName == "" {
		agentName = "hermes"
	}
	ctx, span := o.opt.Tracer.Start(ctx, opInvokeAgent+" "+agentName, trace.KindInternal,
		trace.String("gen_ai.operation.name", opInvokeAgent),
		trace.String("gen_ai.agent.name", agentName),
		trace.String("gen_ai.conversation.id", t.SessionID),
		trace.String("gen_ai.request.model", t.Model),
		trace.String("hermes.source", t.Source))
	if t.User != "" {
		span.Set(trace.String("user.id", t.User))
	}
	return ctx, &turn{o: o, info: t, span: span, tools: map[int]*trace.Span{}}
}

// turn watches one turn.
type turn struct {
	o    *Observer
	info engine.TurnInfo
	span *trace.Span

	mu    sync.Mutex
	tools map[int]*trace.Span // tool calls running, by index in the reply
}

// Event counts finished tool calls and spans every tool call.
func (t *turn) Event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventToolStarted:
		if t.o.opt.Tracer == nil {
			return
		}
		c := ev.Tool.Call
		s := t.o.opt.Tracer.StartChild(t.span, opExecuteTool+" "+c.Name, trace.KindInternal,
			trace.String("gen_ai.operation.name", opExecuteTool),
			trace.String("gen_ai.tool.name", c.Name),
			trace.String("gen_ai.tool.call.id", c.ID),
			trace.String("gen_ai.conversation.id", t.info.SessionID))
		t.mu.Lock()
		t.tools[ev.Tool.Index] = s
		t.mu.Unlock()
	case agent.EventToolFinished:
		te := ev.Tool
		status := string(te.Result.Status)
		if status == "" {
			status = "ok"
		}
		if m := t.o.opt.Metrics; m != nil {
			m.ToolCall(te.Call.Name, status, te.Duration)
		}
		t.mu.Lock()
		s := t.tools[te.Index]
		delete(t.tools, te.Index)
		t.mu.Unlock()
		if te.Result.Status == tool.StatusError {
			s.Fail(string(te.Result.ErrorCode), t.o.opt.Redact(te.Result.Message))
		}
		s.End()
	}
}

// End counts the turn and ends its span, and the spans of tool calls
// the turn left running.
func (t *turn) End(res *agent.Result) {
	if m := t.o.opt.Metrics; m != nil {
		m.Turn(t.info.Source, string(res.Stopped), res.Iterations)
	}
	if t.span == nil {
		return
	}
	t.mu.Lock()
	for i, s := range t.tools {
		s.Fail("interrupted", "the turn ended before the tool call did")
		s.End()
		delete(t.tools, i)
	}
	t.mu.Unlock()
	t.span.Set(trace.Int("gen_ai.usage.input_tokens", res.Usage.InputTokens),
		trace.Int("gen_ai.usage.output_tokens", res.Usage.OutputTokens),
		trace.Int("hermes.iterations", res.Iterations),
		trace.String("hermes.stopped", string(res.Stopped)))
	if res.Err != nil || res.Stopped == agent.StopError {
		msg := string(res.Stopped)
		if res.Err != nil {
			msg = res.Err.Error()
		}
		t.span.Fail(errorType(res.Err, string(res.Stopped)), t.o.opt.Redact(msg))
	}
	t.span.End()
}

// Provider wraps p so that each call is timed, counted and spanned.
func (t *turn) Provider(p llm.Provider) llm.Provider { return &provider{Provider: p, t: t} }

// errorType is the error.type of err: an llm error's kind, else fallback.
func errorType(err error, fallback string) string {
	var le *llm.Error
	if errors.As(err, &le) && le.Kind != "" {
		return string(le.Kind)
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if fallback == "" {
		return "_OTHER"
	}
	return fallback
}

// since is the time from start on the observer's clock.
func (o *Observer) since(start time.Time) time.Duration { return o.opt.Clock.Now().Sub(start) }
