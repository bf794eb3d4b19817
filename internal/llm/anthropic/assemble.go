package anthropic

import (
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// blockDelta is the delta of a content_block_delta, or of a message_delta
// (which carries only the stop reason).
type blockDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// assembler builds one reply from its content blocks. Streamed and
// non-streamed replies both go through it, so that the two wire forms give
// the same Response and the same events.
type assembler struct {
	// budget counts what the reply keeps; once it is spent the reader
	// ends the stream with its error.
	budget     *llm.Budget
	provider   string
	id, model  string
	blocks     []*partialBlock
	calls      int
	stopReason string
	usage      usageCounts
}

// partialBlock is a content block being received. Blocks are kept in wire
// order, which is the order the reply's parts are assembled in.
type partialBlock struct {
	index int
	kind  string
	// text holds a text block's text or a thinking block's reasoning.
	text      strings.Builder
	signature strings.Builder
	data      string
	id, name  string
	// args collects input_json_delta pieces; input is the object that
	// content_block_start announced, used when no piece arrives.
	args  strings.Builder
	input string
	call  int
}

func newAssembler(provider, model string, budget *llm.Budget) *assembler {
	return &assembler{provider: provider, model: model, budget: budget}
}

// begin records the message envelope: id, model and first usage.
func (a *assembler) begin(m *replyMessage) {
	if m.ID != "" {
		a.id = m.ID
	}
	if m.Model != "" {
		a.model = m.Model
	}
	if m.StopReason != "" {
		a.stopReason = m.StopReason
	}
	a.usage.merge(m.Usage)
}

// startBlock opens the block at wire index i and returns the event that
// shows its start, if any: a tool call's id and name, or text that came
// with the block (as in a non-streamed reply).
func (a *assembler) startBlock(i int, rb *replyBlock) (llm.Event, bool) {
	b := &partialBlock{index: i, kind: rb.Type}
	a.blocks = append(a.blocks, b)
	a.budget.Part()
	a.budget.Spend(len(rb.Signature) + len(rb.Data) + len(rb.Input))
	switch rb.Type {
	case "text":
		return a.delta(b, &blockDelta{Type: "text_delta", Text: rb.Text})
	case "thinking":
		b.signature.WriteString(rb.Signature)
		return a.delta(b, &blockDelta{Type: "thinking_delta", Thinking: rb.Thinking})
	case "redacted_thinking":
		b.data = rb.Data
	case "tool_use":
		b.id, b.name, b.call = rb.ID, rb.Name, a.calls
		a.calls++
		// Input is {} in a stream (the pieces follow) and the whole object
		// in a non-streamed reply; a JSON string is taken as its text.
		if in := llm.ArgumentsText(rb.Input); in != "{}" {
			b.input = in
		}
		return llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{
			Index: b.call, ID: b.id, Name: b.name, Arguments: b.input,
		}}, true
	}
	return llm.Event{}, false
}

// blockDelta applies a content_block_delta to the block at wire index i.
// A delta for a block that was never started opens one of the kind the
// delta implies, so that a server that skips content_block_start loses
// nothing.
func (a *assembler) blockDelta(i int, d *blockDelta) (llm.Event, bool) {
	for j := len(a.blocks) - 1; j >= 0; j-- {
		if a.blocks[j].index == i {
			return a.delta(a.blocks[j], d)
		}
	}
	var kind string
	switch d.Type {
	case "text_delta":
		kind = "text"
	case "thinking_delta", "signature_delta":
		kind = "thinking"
	case "input_json_delta":
		kind = "tool_use"
	default:
		return llm.Event{}, false
	}
	// The start of a block opened this late has no id or text to show.
	a.startBlock(i, &replyBlock{Type: kind})
	return a.delta(a.blocks[len(a.blocks)-1], d)
}

// delta applies one delta to b and returns the event that shows it.
func (a *assembler) delta(b *partialBlock, d *blockDelta) (llm.Event, bool) {
	a.budget.Spend(len(d.Text) + len(d.Thinking) + len(d.Signature) + len(d.PartialJSON))
	switch d.Type {
	case "text_delta":
		if d.Text == "" {
			return llm.Event{}, false
		}
		b.text.WriteString(d.Text)
		return llm.Event{Kind: llm.EventText, Text: d.Text}, true
	case "thinking_delta":
		if d.Thinking == "" {
			return llm.Event{}, false
		}
		b.text.WriteString(d.Thinking)
		return llm.Event{Kind: llm.EventReasoning, Text: d.Thinking}, true
	case "signature_delta":
		b.signature.WriteString(d.Signature)
	case "input_json_delta":
		if d.PartialJSON == "" {
			return llm.Event{}, false
		}
		b.args.WriteString(d.PartialJSON)
		return llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: b.call, Arguments: d.PartialJSON}}, true
	}
	return llm.Event{}, false
}

// response assembles what has arrived into a Response: text blocks become
// text parts, thinking blocks both the visible Reasoning and the
// ReasoningBlocks that must be sent back, tool_use blocks the tool calls.
func (a *assembler) response() *llm.Response {
	msg := llm.Message{Role: llm.RoleAssistant}
	var reasoning strings.Builder
	for _, b := range a.blocks {
		switch b.kind {
		case "text":
			if b.text.Len() > 0 {
				msg.Content = append(msg.Content, llm.TextPart(b.text.String()))
			}
		case "thinking":
			reasoning.WriteString(b.text.String())
			msg.ReasoningBlocks = append(msg.ReasoningBlocks, llm.ReasoningBlock{
				Type: "thinking", Text: b.text.String(), Signature: b.signature.String(),
			})
		case "redacted_thinking":
			msg.ReasoningBlocks = append(msg.ReasoningBlocks, llm.ReasoningBlock{Type: "redacted_thinking", Data: b.data})
		case "tool_use":
			args := b.args.String()
			if strings.TrimSpace(args) == "" {
				args = b.input
			}
			if args == "" {
				args = "{}"
			}
			id := b.id
			if id == "" {
				id = llm.StableCallID(a.id, b.call, b.name, args)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: b.name, Arguments: args})
		}
	}
	msg.Reasoning = reasoning.String()
	return &llm.Response{
		ID:              a.id,
		Model:           a.model,
		Provider:        a.provider,
		Message:         msg,
		FinishReason:    finishReason(a.stopReason, len(msg.ToolCalls) > 0),
		RawFinishReason: a.stopReason,
		Usage:           a.usage.usage(),
	}
}

// finishReason normalizes a stop_reason. An unknown or missing one is read
// from the reply itself: tool calls mean the model wants them run.
func finishReason(raw string, hasCalls bool) llm.FinishReason {
	switch raw {
	case "end_turn", "stop_sequence", "pause_turn":
		return llm.FinishStop
	case "tool_use":
		return llm.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "refusal":
		return llm.FinishContentFilter
	}
	if hasCalls {
		return llm.FinishToolCalls
	}
	return llm.FinishStop
}
