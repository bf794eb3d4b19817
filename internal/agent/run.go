package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// run is the state of one turn.
type run struct {
	cfg    Config
	sink   Sink
	log    *slog.Logger
	msgs   []llm.Message // the conversation without the system prompt
	system []llm.Message
	res    Result
	guard  repeatGuard
	// invalidRounds counts consecutive model replies whose every call was
	// invalid (unknown tool, bad JSON, arguments failing the schema).
	invalidRounds int
	// texts collects the assistant text of the turn, for the progress
	// reported when a guard stops it.
	texts []string
	// reported is the last call's usage, which covered the first
	// reportedMsgs messages; the Compactor estimates from it.
	reported     llm.Usage
	reportedMsgs int
	// usage is the last model call's usage until it is recorded with
	// the reply it paid for.
	usage *CallUsage
	// wire keeps the encoding of the conversation between the turn's
	// model calls, so each call encodes only the messages added since.
	wire *llm.WireCache
}

// Run performs one turn. history is the conversation so far, without the
// system prompt (cfg.System); input is the new user message, or a zero
// Message to continue a turn that was interrupted before the model
// answered. The input is recorded before the model is called. Run never
// panics on model or tool misbehaviour: every failure ends up in the
// Result and the recorded conversation stays consistent.
func Run(ctx context.Context, cfg Config, history []llm.Message, input llm.Message, sink Sink) *Result {
	if sink == nil {
		sink = discard{}
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	r := &run{cfg: cfg, sink: sink, log: cfg.Logger, wire: cfg.Wire}
	if r.wire == nil {
		r.wire = new(llm.WireCache)
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.log = r.log.With(slog.String("session_id", cfg.SessionID))
	if cfg.System != "" {
		r.system = []llm.Message{llm.SystemMessage(cfg.System)}
	}
	r.msgs = Repair(history)
	// A round cut short by a crash is answered on record before anything
	// follows it, so the stored conversation stays valid; the request
	// carries the same answers through Repair.
	if missing := lost(history); len(missing) > 0 {
		recs := make([]Recorded, len(missing))
		for i, m := range missing {
			recs[i] = Recorded{Message: m}
		}
		if err := r.record(ctx, recs...); err != nil {
			return r.finish(StopError, err)
		}
	}
	if input.Role != "" {
		if err := r.record(ctx, Recorded{Message: input}); err != nil {
			return r.finish(StopError, err)
		}
		r.msgs = appendUser(r.msgs, input)
	}
	ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: cfg.SessionID, Source: cfg.Source, Agent: cfg.Agent, User: cfg.User, Tenant: cfg.Tenant, Workdir: cfg.Workdir, Approver: cfg.Approver, BeforeWrite: cfg.BeforeWrite})
	return r.loop(ctx)
}

func (r *run) loop(ctx context.Context) *Result {
	for {
		if r.res.Iterations >= r.cfg.MaxTurns {
			return r.summarize(ctx)
		}
		r.compact(ctx, nil)
		resp, err := r.call(ctx, r.cfg.Tools, "")
		if err != nil && overflowed(err) && ctx.Err() == nil {
			// The estimate was short of what the provider counted:
			// compress now, whatever the threshold, and try once more.
			if ok, cerr := r.compact(ctx, err); ok && cerr == nil {
				resp, err = r.call(ctx, r.cfg.Tools, "")
			}
		}
		if err != nil {
			return r.failed(ctx, resp, err)
		}
		if resp.Empty() {
			return r.finish(StopError, emptyReply(resp))
		}
		msg := resp.Message
		if len(msg.ToolCalls) == 0 {
			// The answer has been shown; an interrupt that comes now
			// must not keep it off the record.
			if err := r.record(context.WithoutCancel(ctx), Recorded{Message: msg, FinishReason: string(resp.FinishReason)}); err != nil {
				return r.finish(StopError, err)
			}
			r.msgs = append(r.msgs, msg)
			r.res.Final = msg.Text()
			return r.finish(StopDone, nil)
		}
		if stop, err := r.toolRound(ctx, resp); stop != "" {
			return r.finish(stop, err)
		}
	}
}

// call makes one model call, streaming its deltas to the sink.
func (r *run) call(ctx context.Context, tools []llm.ToolSpec, choice string) (*llm.Response, error) {
	req := &llm.Request{
		Model:      r.cfg.Model,
		Messages:   make([]llm.Message, 0, len(r.system)+len(r.msgs)),
		Tools:      tools,
		ToolChoice: choice,
		MaxTokens:  r.cfg.MaxTokens,
		// Hermes Agent's agent.reasoning_effort.
		ReasoningEffort: r.cfg.Reasoning,
		// Every turn shares the system prompt, the tools and most of the
		// history with the last: mark them for the providers that cache
		// only what is marked (Anthropic); the others ignore it.
		CacheBreakpoints: true,
		Cache:            r.wire,
	}
	req.Messages = append(append(req.Messages, r.system...), r.msgs...)
	r.res.Iterations++
	start := time.Now()
	var resp *llm.Response
	var err error
	for ev := range r.cfg.Provider.Stream(ctx, req) {
		switch ev.Kind {
		case llm.EventText:
			r.sink.Event(Event{Kind: EventText, Text: ev.Text})
		case llm.EventReasoning:
			r.sink.Event(Event{Kind: EventReasoning, Text: ev.Text})
		case llm.EventRetry:
			r.sink.Event(Event{Kind: EventRetry, Retry: ev.Retry})
		case llm.EventDone:
			resp, err = ev.Response, nil
		case llm.EventError:
			resp, err = ev.Response, ev.Err
		}
	}
	if resp == nil && err == nil {
		err = &llm.Error{Kind: llm.ErrInvalidResponse, Message: "stream ended without a final event"}
	}
	if resp != nil && !resp.Usage.IsZero() {
		r.reported, r.reportedMsgs = resp.Usage, len(r.msgs)
		addUsage(&r.res.Usage, resp.Usage)
		r.sink.Event(Event{Kind: EventUsage, Usage: resp.Usage})
		model := resp.Model
		if model == "" {
			model = r.cfg.Model
		}
		// The usage is stored with the reply it paid for (see record);
		// one left over from a call whose reply was not recorded goes
		// on its own.
		r.flushUsage(ctx)
		r.usage = &CallUsage{Model: model, Usage: resp.Usage}
	}
	if r.log.Enabled(ctx, slog.LevelDebug) {
		tokens := 0
		if resp != nil {
			tokens = resp.Usage.InputTokens + resp.Usage.OutputTokens
		}
		r.log.Debug("model call", slog.Int("iteration", r.res.Iterations),
			slog.Int64("duration_ms", time.Since(start).Milliseconds()), slog.Int("tokens", tokens))
	}
	return resp, err
}

// failed ends the turn after a model call failed. Whatever text streamed
// before an interrupt is kept, so the user's view and the stored
// conversation agree.
func (r *run) failed(ctx context.Context, resp *llm.Response, err error) *Result {
	if ctx.Err() != nil {
		if resp != nil && resp.Message.Text() != "" {
			partial := llm.AssistantMessage(resp.Message.Text())
			if rerr := r.record(context.WithoutCancel(ctx), Recorded{Message: partial, FinishReason: "interrupted"}); rerr == nil {
				r.msgs = append(r.msgs, partial)
				r.res.Final = partial.Text()
			}
		}
		return r.finish(StopInterrupted, ctx.Err())
	}
	return r.finish(StopError, err)
}

// emptyReply is the error that ends a turn whose model call came back
// with neither text nor tool calls: there is nothing to show the user and
// nothing to do, and calling again with the same conversation would most
// likely get the same. (The retry layer has already asked again when one
// is configured.) The message says what to try.
func emptyReply(resp *llm.Response) error {
	e := &llm.Error{Kind: llm.ErrInvalidResponse, Provider: resp.Provider, Message: "the model returned an empty reply"}
	switch resp.FinishReason {
	case llm.FinishLength:
		e.Message = "the model used its whole reply budget (max_tokens) before writing an answer or calling a tool; raise model.max_tokens or ask for a smaller step"
	case llm.FinishContentFilter:
		e.Message = "the provider's content filter withheld the reply; rephrase the request or use another model"
	default:
		e.Message += "; try again, or use another model"
	}
	return e
}

// summarize makes the last, tool-less call once the iteration budget is
// spent. The request for a summary is sent but not recorded: the stored
// conversation goes from the last tool results straight to the summary,
// which the protocol allows.
func (r *run) summarize(ctx context.Context) *Result {
	ask := llm.UserMessage(fmt.Sprintf("You have used all %d steps allowed for this turn, so no more tools can run. "+
		"Do not call tools. Summarize for the user what you did, what is still left to do, and what they should do next.", r.cfg.MaxTurns))
	r.msgs = append(r.msgs, ask)
	resp, err := r.call(ctx, r.cfg.Tools, "none")
	r.msgs = r.msgs[:len(r.msgs)-1]
	if err != nil {
		return r.failed(ctx, resp, err)
	}
	msg := llm.AssistantMessage(resp.Message.Text())
	if err := r.record(context.WithoutCancel(ctx), Recorded{Message: msg, FinishReason: string(resp.FinishReason)}); err != nil {
		return r.finish(StopError, err)
	}
	r.msgs = append(r.msgs, msg)
	r.res.Final = msg.Text()
	return r.finish(StopMaxTurns, nil)
}

// progress is what a guard-stopped turn returns: the text the model wrote
// along the way, then why hermes stopped.
func (r *run) progress(why string) string {
	parts := append([]string(nil), r.texts...)
	parts = append(parts, why)
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

func (r *run) record(ctx context.Context, msgs ...Recorded) error {
	if r.cfg.Recorder == nil {
		return nil
	}
	if r.usage != nil && len(msgs) > 0 && msgs[0].Message.Role == llm.RoleAssistant {
		msgs[0].Usage, r.usage = r.usage, nil
	}
	if err := r.cfg.Recorder.Record(ctx, msgs); err != nil {
		return fmt.Errorf("recording the conversation: %w", err)
	}
	return nil
}

// flushUsage stores the usage of a call whose reply was not recorded.
func (r *run) flushUsage(ctx context.Context) {
	u := r.usage
	if u == nil || r.cfg.Recorder == nil {
		return
	}
	r.usage = nil
	if err := r.cfg.Recorder.Usage(context.WithoutCancel(ctx), u.Model, u.Usage); err != nil {
		r.log.Warn("usage not recorded", slog.String("error", err.Error()))
	}
}

func (r *run) finish(stop Stop, err error) *Result {
	r.flushUsage(context.Background())
	r.res.Stopped = stop
	r.res.Err = err
	if err != nil && !errors.Is(err, context.Canceled) {
		r.sink.Event(Event{Kind: EventError, Err: err})
	}
	res := r.res
	r.sink.Event(Event{Kind: EventDone, Result: &res})
	return &res
}
