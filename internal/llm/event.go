package llm

import (
	"context"
	"iter"
	"time"
)

// EventKind says what an Event carries.
type EventKind uint8

// The stream event kinds. A stream yields any number of deltas, usage and
// retry events, and ends with exactly one EventDone or EventError.
const (
	// EventText carries a piece of visible reply text in Text.
	EventText EventKind = iota + 1
	// EventReasoning carries a piece of reasoning text in Text.
	EventReasoning
	// EventToolCall carries a tool-call fragment in ToolCall. Fragments
	// are for showing progress; the authoritative calls are in the final
	// Response, because some vendors re-send whole calls in every chunk.
	EventToolCall
	// EventUsage carries the token counts reported so far in Usage.
	EventUsage
	// EventRetry says the attempt failed and another will follow after
	// Retry.Delay (possibly on a fallback provider): everything streamed
	// since the start or the previous EventRetry is void.
	EventRetry
	// EventDone ends a successful stream; Response is the whole reply.
	EventDone
	// EventError ends a failed stream; Err says why (usually an *Error)
	// and Response holds whatever arrived before the failure.
	EventError
)

// String names the kind for logs.
func (k EventKind) String() string {
	switch k {
	case EventText:
		return "text"
	case EventReasoning:
		return "reasoning"
	case EventToolCall:
		return "tool_call"
	case EventUsage:
		return "usage"
	case EventRetry:
		return "retry"
	case EventDone:
		return "done"
	case EventError:
		return "error"
	}
	return "unknown"
}

// ToolCallDelta is a fragment of a tool call as it streams in. Index is the
// call's position in the reply (assigned by the adapter, starting at 0);
// ID and Name are set on the fragment that first carries them.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// RetryInfo describes why an attempt was abandoned and what happens next.
type RetryInfo struct {
	// Attempt is the number of the attempt about to start (2 for the
	// first retry).
	Attempt int
	// Delay is how long the caller waits before it.
	Delay time.Duration
	// Err is the failure that ended the previous attempt.
	Err error
	// Provider and Model name where the next attempt goes; Fallback is set
	// when that is a different provider from the previous attempt's.
	Provider string
	Model    string
	Fallback bool
}

// Event is one item of a model stream.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall ToolCallDelta
	Usage    Usage
	Retry    *RetryInfo
	Response *Response
	Err      error
}

// Provider is one configured model endpoint speaking one wire protocol.
// Stream sends req and yields its events; breaking out of the loop, or
// cancelling ctx, aborts the HTTP request at once. Implementations are safe
// for concurrent use.
type Provider interface {
	// Name is the configured provider name ("openrouter", "local").
	Name() string
	// Stream performs the call. The last event is EventDone or EventError.
	Stream(ctx context.Context, req *Request) iter.Seq[Event]
}

// Collect drains a stream and returns the final response, or the error
// that ended it together with whatever partial response arrived.
func Collect(events iter.Seq[Event]) (*Response, error) {
	var (
		resp *Response
		err  error
	)
	for ev := range events {
		switch ev.Kind {
		case EventDone:
			resp, err = ev.Response, nil
		case EventError:
			resp, err = ev.Response, ev.Err
		}
	}
	if resp == nil && err == nil {
		err = &Error{Kind: ErrInvalidResponse, Message: "stream ended without a final event"}
	}
	return resp, err
}

// Generate performs a call and collects its events: the non-streaming form
// of Provider.Stream. Whether the wire is streamed is req.NoStream's choice.
func Generate(ctx context.Context, p Provider, req *Request) (*Response, error) {
	return Collect(p.Stream(ctx, req))
}
