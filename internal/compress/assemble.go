package compress

import (
	"slices"

	"github.com/hermes-go/hermes/internal/llm"
)

// assemble performs phase 4: head, a summary message, tail. The summary's
// role is the one that keeps user and assistant alternating: assistant
// before a user message, user before an assistant message. When both
// neighbours would clash (an assistant or nothing before a user message,
// a user before an assistant message), the summary becomes the leading
// part of that user message instead of a message of its own, so that the
// conversation still starts with a user turn.
func assemble(head, tail []llm.Message, summary string) []llm.Message {
	part := llm.TextPart(summaryText(summary))
	prev := llm.Role("")
	if len(head) > 0 {
		prev = head[len(head)-1].Role
	}
	next := llm.Role("")
	if len(tail) > 0 {
		next = tail[0].Role
	}
	out := make([]llm.Message, 0, len(head)+1+len(tail))
	out = append(out, head...)
	switch {
	case next == llm.RoleUser && (prev == llm.RoleAssistant || prev == ""):
		first := tail[0]
		first.Content = append([]llm.Part{part}, first.Content...)
		out = append(out, first)
		return append(out, tail[1:]...)
	case next == llm.RoleUser:
		out = append(out, llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{part}})
	case prev == llm.RoleUser:
		last := &out[len(out)-1]
		last.Content = append(slices.Clone(last.Content), part)
	default:
		out = append(out, llm.Message{Role: llm.RoleUser, Content: []llm.Part{part}})
	}
	return append(out, tail...)
}

// sanitize repairs tool pairing after turns were removed: a tool result
// that answers no call of the assistant message before it (or answers one
// twice) is dropped; calls left without a result are removed from their
// message, and a message left with nothing is dropped; then user or
// assistant messages that end up next to one of the same role are merged.
func sanitize(msgs []llm.Message) []llm.Message {
	kept := make([]llm.Message, 0, len(msgs))
	answered := map[string]bool{}
	var open map[string]bool
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant:
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		case llm.RoleTool:
			if !open[m.ToolCallID] {
				continue
			}
			delete(open, m.ToolCallID)
			answered[m.ToolCallID] = true
		}
		kept = append(kept, m)
	}

	out := kept[:0]
	for _, m := range kept {
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
			calls := slices.DeleteFunc(slices.Clone(m.ToolCalls), func(c llm.ToolCall) bool { return !answered[c.ID] })
			if len(calls) == 0 {
				calls = nil
			}
			m.ToolCalls = calls
			if len(calls) == 0 && len(m.Content) == 0 && len(m.ReasoningBlocks) == 0 && m.Reasoning == "" {
				continue
			}
		}
		out = append(out, m)
	}
	return mergeSameRole(out)
}

// mergeSameRole joins a user message into a user message before it, and
// an assistant message into an assistant message before it that made no
// calls, so that roles alternate.
func mergeSameRole(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			prev := &out[n-1]
			switch {
			case m.Role == llm.RoleUser:
				prev.Content = append(slices.Clone(prev.Content), m.Content...)
				continue
			case m.Role == llm.RoleAssistant && len(prev.ToolCalls) == 0:
				prev.Content = append(slices.Clone(prev.Content), m.Content...)
				prev.ToolCalls = m.ToolCalls
				prev.ReasoningBlocks = append(slices.Clone(prev.ReasoningBlocks), m.ReasoningBlocks...)
				if m.Reasoning != "" {
					prev.Reasoning += m.Reasoning
				}
				continue
			}
		}
		out = append(out, m)
	}
	return out
}
