package agent

import (
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// EventKind says what an Event carries.
type EventKind uint8

// The events of a turn, in the order a front-end typically sees them:
// text and reasoning deltas while the model streams, a tool start and
// finish per call, usage after each model call, and one Done at the end.
const (
	EventText EventKind = iota + 1
	EventReasoning
	EventToolStarted
	EventToolFinished
	EventUsage
	// EventRetry says the model call failed and is tried again: text
	// streamed since the last model call started is void.
	EventRetry
	// EventError reports a failure that ended the turn; Done follows.
	EventError
	EventDone
	// EventCompressed says the conversation was compressed to fit the
	// context window; Text says how much, or, with Err set, why it was
	// not (the conversation went on unchanged).
	EventCompressed
)

// ToolEvent describes one tool call for a front-end to show.
type ToolEvent struct {
	// Index is the call's position in the model's reply.
	Index int
	Call  llm.ToolCall
	// Result, Content and Duration are set when the call finished.
	Result   tool.Result
	Content  string
	Duration time.Duration
}

// Event is one thing that happened during a turn.
type Event struct {
	Kind  EventKind
	Text  string
	Tool  *ToolEvent
	Usage llm.Usage
	Retry *llm.RetryInfo
	Err   error
	// Result is set on EventDone.
	Result *Result
}

// Sink receives a turn's events. It is called from the goroutine running
// the turn and from tool workers, so implementations must be safe for
// concurrent use and should return quickly.
type Sink interface {
	Event(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Event calls f(e).
func (f SinkFunc) Event(e Event) { f(e) }

// discard is the Sink used when the caller gives none.
type discard struct{}

func (discard) Event(Event) {}
