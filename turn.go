package hermes

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
)

// Turn is one message to the agent and how to run it.
type Turn struct {
	// Session continues that session (its history, tools and model); ""
	// starts a new one, whose id the Reply carries.
	Session string
	// Text is the message.
	Text string
	// Toolsets, when set, replaces the configured toolsets for this turn
	// ("terminal", "file", "web", ...); the program's Tools are offered
	// either way.
	Toolsets []string
	// Model, when set, is the model of this turn on the configured
	// provider.
	Model string
	// Approve, when set, replaces Options.Approve for this turn.
	Approve ApproveFunc
}

// Reply is how a turn ended.
type Reply struct {
	// Session is the session the turn ran in: pass it as Turn.Session
	// to continue the conversation.
	Session string
	// Text is the answer. When a guard stopped the turn (too many
	// iterations, a loop of the same call) it ends with a note saying
	// so.
	Text string
	// Stopped says why the turn ended: "done" when the model finished;
	// "max_turns", "repeat_guard", "invalid_tool_calls", "truncated",
	// "interrupted" or "error" otherwise.
	Stopped string
	// Err is the failure that ended the turn, with Stopped "error" or
	// "interrupted" (a model unreachable after its retries, ctx done).
	Err error
	// ToolCalls counts the tools called.
	ToolCalls int
	// InputTokens and OutputTokens sum every model call of the turn.
	InputTokens, OutputTokens int
}

// EventKind says what an Event carries.
type EventKind int

// The events of a turn, in the order they come.
const (
	// EventText is a piece of the answer as the model streams it.
	EventText EventKind = iota + 1
	// EventReasoning is a piece of the model's visible thinking.
	EventReasoning
	// EventToolStarted is a tool call about to run: Tool has its name
	// and arguments.
	EventToolStarted
	// EventToolFinished is a tool call done: Tool has its result, as
	// the model reads it.
	EventToolFinished
	// EventRetry says the model call failed and is tried again; text
	// streamed since the call started is void.
	EventRetry
	// EventCompressed says the conversation was compressed to fit the
	// model's context window.
	EventCompressed
	// EventDone ends what Stream yields: Reply is how the turn ended.
	// Run's callback never gets it; Run returns the Reply.
	EventDone
)

// Event is one thing that happened during a turn.
type Event struct {
	Kind EventKind
	// Text is the streamed text, or what a retry or compression says.
	Text string
	// Tool is the call of EventToolStarted and EventToolFinished.
	Tool *ToolCall
	// Reply is set on EventDone.
	Reply *Reply
}

// ToolCall is one call the model made.
type ToolCall struct {
	ID, Name string
	// Arguments are the call's arguments (JSON), as the model sent them.
	Arguments string
	// Result is what the model read back (JSON), secrets redacted; set
	// when the call finished.
	Result string
	// Failed says the call failed, was denied or was refused.
	Failed bool
	// Duration is how long the call ran.
	Duration time.Duration
}

// Ask sends text in a new session and returns the reply.
func (a *Agent) Ask(ctx context.Context, text string) (*Reply, error) {
	return a.Run(ctx, Turn{Text: text}, nil)
}

// Run runs one turn, calling on (when not nil) with each event as it
// happens; on may be called from several goroutines at once (tools run
// in parallel) and should return quickly. The error is for a turn that
// could not start (an unknown session, no model configured, a tool name
// taken twice); a turn that started and failed returns a Reply with
// Stopped and Err set.
func (a *Agent) Run(ctx context.Context, t Turn, on func(Event)) (*Reply, error) {
	approve := t.Approve
	if approve == nil {
		approve = a.approve
	}
	in := engine.Input{Text: t.Text, Source: "library", Workdir: a.workdir, Toolsets: t.Toolsets, Model: t.Model,
		Approval: asker(approve, a.workdir)}
	if a.tools != nil {
		in.Tools = a.tools
	}
	var sink agent.Sink
	if on != nil {
		sink = agent.SinkFunc(func(e agent.Event) {
			if ev, ok := event(e); ok {
				on(ev)
			}
		})
	}
	res, err := a.app.Engine.Turn(ctx, t.Session, in, sink)
	if err != nil {
		if t.Session != "" {
			return nil, sessionErr(t.Session, err)
		}
		return nil, fmt.Errorf("hermes: %w", err)
	}
	r := &Reply{Session: res.SessionID}
	if res.Result != nil {
		r.Text, r.Stopped, r.Err, r.ToolCalls = res.Final, string(res.Stopped), res.Err, len(res.ToolCalls)
		r.InputTokens, r.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
	}
	return r, nil
}

// Stream runs one turn and yields its events as they happen, ending
// with an EventDone that carries the Reply; a turn that could not start
// yields one zero Event with the error instead. Leaving the loop early
// cancels the turn.
func (a *Agent) Stream(ctx context.Context, t Turn) iter.Seq2[Event, error] {
	type item struct {
		e   Event
		err error
	}
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		items := make(chan item, 64)
		go func() {
			defer close(items)
			res, err := a.Run(ctx, t, func(e Event) {
				select {
				case items <- item{e: e}:
				case <-ctx.Done():
				}
			})
			if err != nil {
				items <- item{err: err}
				return
			}
			items <- item{e: Event{Kind: EventDone, Reply: res}}
		}()
		for it := range items {
			if !yield(it.e, it.err) {
				break
			}
		}
		cancel()
		for range items { // the turn ends before Stream returns
		}
	}
}

// event is e as a program sees it; Done, usage and errors are in the
// Reply instead.
func event(e agent.Event) (Event, bool) {
	switch e.Kind {
	case agent.EventText:
		return Event{Kind: EventText, Text: e.Text}, true
	case agent.EventReasoning:
		return Event{Kind: EventReasoning, Text: e.Text}, true
	case agent.EventRetry:
		return Event{Kind: EventRetry, Text: e.Text}, true
	case agent.EventCompressed:
		return Event{Kind: EventCompressed, Text: e.Text}, true
	case agent.EventToolStarted, agent.EventToolFinished:
		if e.Tool == nil {
			return Event{}, false
		}
		c := &ToolCall{ID: e.Tool.Call.ID, Name: e.Tool.Call.Name, Arguments: e.Tool.Call.Arguments}
		kind := EventToolStarted
		if e.Kind == agent.EventToolFinished {
			kind = EventToolFinished
			c.Result, c.Duration = e.Tool.Content, e.Tool.Duration
			c.Failed = e.Tool.Result.Status != "ok"
		}
		return Event{Kind: kind, Tool: c}, true
	}
	return Event{}, false
}
