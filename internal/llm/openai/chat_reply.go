package openai

import (
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// chatReply gathers one reply as its chunks arrive and queues the events
// they produce. The streaming and the non-streaming parsers both feed it,
// the latter with the whole reply as a single chunk, so that every vendor
// quirk is handled once, in one place, for both modes.
type chatReply struct {
	resp llm.Response
	// budget counts what the reply keeps; once it is spent the reader
	// ends the stream with its error.
	budget    *llm.Budget
	text      strings.Builder
	reasoning strings.Builder
	think     chatThinkSplitter
	calls     llm.ToolCallAccumulator
	// shown records, per call position, what has been announced in an
	// EventToolCall already, so that vendors re-sending whole calls do not
	// announce them again.
	shown []chatShown
	// rawFinish is the last non-empty finish_reason; finished is set once
	// one has been seen, which is what makes a stream without [DONE] whole.
	rawFinish string
	finished  bool
	// reasoningField is set once reasoning_content or reasoning carried
	// text: reasoning_details then repeat it and are ignored.
	reasoningField bool
	pending        []llm.Event
}

// chatShown says whether a call's id and name have been announced.
type chatShown struct{ id, name bool }

// newChatReply returns an empty reply from the named provider, counted
// against budget.
func newChatReply(provider string, budget *llm.Budget) *chatReply {
	return &chatReply{resp: llm.Response{Provider: provider}, budget: budget}
}

// add merges one chunk. whole is set for a non-streamed reply, whose tool
// calls are complete and told apart by their position in the array.
func (r *chatReply) add(c *chatChunk, whole bool) {
	if r.resp.ID == "" {
		r.resp.ID = c.ID
	}
	if r.resp.Model == "" {
		r.resp.Model = c.Model
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only the first choice is asked for
		}
		m := ch.Delta
		if m == nil {
			m = ch.Message
		}
		if m != nil {
			r.message(m, whole)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			r.rawFinish = *ch.FinishReason
			r.finished = true
		}
	}
	u := c.Usage
	if (u == nil || u.canonical().IsZero()) && c.XGroq != nil && c.XGroq.Usage != nil {
		u = c.XGroq.Usage
	}
	if u != nil {
		if usage := u.canonical(); !usage.IsZero() {
			r.resp.Usage = usage
			r.pending = append(r.pending, llm.Event{Kind: llm.EventUsage, Usage: usage})
		}
	}
}

// message merges one message or delta: reasoning first, then content, then
// tool calls, the order in which models produce them.
func (r *chatReply) message(m *chatMessage, whole bool) {
	switch {
	case m.ReasoningContent.set || m.Reasoning.set:
		s := m.ReasoningContent.s
		if s == "" {
			s = m.Reasoning.s
		}
		if s != "" {
			r.reasoningField = true
			r.addReasoning(s)
		}
	case !r.reasoningField:
		for _, d := range m.ReasoningDetails {
			r.addReasoning(d.text())
		}
	}
	if m.Content.parts == nil {
		r.addText(m.Content.text)
	}
	for _, p := range m.Content.parts {
		if p.reasoning {
			r.addReasoning(p.text)
		} else {
			r.addText(p.text)
		}
	}
	for i := range m.ToolCalls {
		r.toolCall(&m.ToolCalls[i], i, whole)
	}
}

// toolCall hands a fragment to the accumulator, which sorts out ids and
// indexes, and announces what it adds.
func (r *chatReply) toolCall(tc *chatToolCall, pos int, whole bool) {
	index := llm.NoIndex
	switch {
	case whole:
		index = pos
	case tc.Index != nil:
		index = *tc.Index
	}
	args := llm.ArgumentsText(tc.Function.Arguments)
	calls := r.calls.Len()
	at := r.calls.Add(index, tc.ID, tc.Function.Name, args)
	if r.calls.Len() > calls {
		r.budget.Part()
	}
	r.budget.Spend(len(args))
	for len(r.shown) <= at {
		r.shown = append(r.shown, chatShown{})
	}
	d := llm.ToolCallDelta{Index: at, Arguments: args}
	if tc.ID != "" && !r.shown[at].id {
		d.ID, r.shown[at].id = tc.ID, true
	}
	if tc.Function.Name != "" && !r.shown[at].name {
		d.Name, r.shown[at].name = tc.Function.Name, true
	}
	if d.ID != "" || d.Name != "" || d.Arguments != "" {
		r.pending = append(r.pending, llm.Event{Kind: llm.EventToolCall, ToolCall: d})
	}
}

// addText passes reply text through the think-tag splitter.
func (r *chatReply) addText(s string) {
	if s == "" {
		return
	}
	reasoning, text := r.think.feed(s)
	r.addReasoning(reasoning)
	r.budget.Spend(len(text))
	r.appendText(text)
}

// appendText records reply text that is past the splitter and queues it
// as a text delta.
func (r *chatReply) appendText(s string) {
	if s != "" {
		r.text.WriteString(s)
		r.pending = append(r.pending, llm.Event{Kind: llm.EventText, Text: s})
	}
}

// addReasoning records reasoning text, from whichever field or tag it came,
// and queues it as a reasoning delta.
func (r *chatReply) addReasoning(s string) {
	if s != "" {
		r.budget.Spend(len(s))
		r.reasoning.WriteString(s)
		r.pending = append(r.pending, llm.Event{Kind: llm.EventReasoning, Text: s})
	}
}

// flush yields the queued events; it reports false when the consumer
// stopped.
func (r *chatReply) flush(yield func(llm.Event) bool) bool {
	for _, ev := range r.pending {
		if !yield(ev) {
			r.pending = r.pending[:0]
			return false
		}
	}
	r.pending = r.pending[:0]
	return true
}

// response releases text held by the think splitter and returns the reply
// as it stands: whole at the end of a stream, partial after a failure.
func (r *chatReply) response() *llm.Response {
	reasoning, text := r.think.flush()
	r.addReasoning(reasoning)
	r.appendText(text)
	resp := r.resp
	calls := r.calls.Calls(resp.ID)
	resp.Message = llm.AssistantMessage(r.text.String(), calls...)
	resp.Message.Reasoning = r.reasoning.String()
	resp.RawFinishReason = r.rawFinish
	resp.FinishReason = chatFinishReason(r.rawFinish, len(calls) > 0)
	return &resp
}

// done ends the stream successfully.
func (r *chatReply) done(yield func(llm.Event) bool) {
	resp := r.response()
	if r.flush(yield) {
		yield(llm.Event{Kind: llm.EventDone, Response: resp})
	}
}

// fail ends the stream with err and whatever arrived before it.
func (r *chatReply) fail(yield func(llm.Event) bool, err error) {
	resp := r.response()
	if r.flush(yield) {
		yield(llm.Event{Kind: llm.EventError, Err: err, Response: resp})
	}
}

// chatFinishReason normalizes a Chat Completions finish_reason. Servers
// that stream tool calls do not always say so (Kimi sends none, some send
// "stop"), so calls present make the reason tool_calls.
func chatFinishReason(raw string, hasCalls bool) llm.FinishReason {
	switch raw {
	case "", "stop":
		if hasCalls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case "length":
		return llm.FinishLength
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishError
}
