package agent

import (
	"context"
	"errors"

	"github.com/hermes-go/hermes/internal/llm"
)

// Compactor keeps a conversation inside the model's context window. The
// loop asks it before every model call; it answers with a shorter
// conversation (and the system prompt that goes with it) when the
// conversation has grown past its threshold, and ok false otherwise.
// force is set after the provider refused a request as too long.
type Compactor interface {
	Compact(ctx context.Context, req CompactRequest) (Compacted, bool, error)
}

// CompactRequest is what the loop is about to send.
type CompactRequest struct {
	System   string
	Messages []llm.Message
	Tools    []llm.ToolSpec
	Force    bool
	// Overflow is the provider's refusal that forced this compaction, so
	// the Compactor can learn the real window from it.
	Overflow error
	// Reported is the usage the provider reported for the last call of
	// this conversation, which sent its first ReportedMessages messages:
	// the truth to start from (llm.Tally); zero before any call.
	Reported         llm.Usage
	ReportedMessages int
}

// Compacted is a compressed conversation: the loop goes on with it, and
// records what follows where the Compactor says (a child session).
type Compacted struct {
	System   string
	Messages []llm.Message
	// Note is shown to the user ("compressed 120k → 18k tokens").
	Note string
}

// compact runs the Compactor before a model call, forced when overflow
// (the provider's refusal of the last request as too long) is set. A
// failure leaves the conversation as it was and is reported as an event,
// since the call may still fit.
func (r *run) compact(ctx context.Context, overflow error) (bool, error) {
	if r.cfg.Compactor == nil {
		return false, nil
	}
	system := ""
	if len(r.system) > 0 {
		system = r.system[0].Text()
	}
	out, ok, err := r.cfg.Compactor.Compact(ctx, CompactRequest{System: system, Messages: r.msgs, Tools: r.cfg.Tools,
		Force: overflow != nil, Overflow: overflow,
		Reported: r.reported, ReportedMessages: r.reportedMsgs})
	if err != nil {
		r.sink.Event(Event{Kind: EventCompressed, Err: err})
		return false, err
	}
	if !ok {
		return false, nil
	}
	r.msgs = out.Messages
	r.reported, r.reportedMsgs = llm.Usage{}, 0
	if out.System != "" {
		r.system = []llm.Message{llm.SystemMessage(out.System)}
	}
	r.sink.Event(Event{Kind: EventCompressed, Text: out.Note})
	return true, nil
}

// overflowed reports whether err says the request did not fit the
// model's context window.
func overflowed(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Kind == llm.ErrContextOverflow
}
