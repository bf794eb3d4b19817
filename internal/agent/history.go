package agent

import (
	"github.com/hermes-go/hermes/internal/llm"
)

// Repair returns history made safe to send: every tool call is answered by
// exactly one result right after its assistant message (a call left
// unanswered gets a result saying it was lost, lostResult; a result for no
// call is dropped), and consecutive user messages are merged into one. A
// conversation recorded by Run is in this shape but for a crash: one cut
// between a user message and the reply, or while tools ran (Run records
// the lost results of its last round when it resumes, see lost). Repair
// also guards against one written by an older hermes or edited by hand.
// The input is not modified.
func Repair(history []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(history)+1)
	for i := 0; i < len(history); i++ {
		m := history[i]
		switch m.Role {
		case llm.RoleTool:
			// Results are consumed right after their call below; one here
			// answers nothing.
			continue
		case llm.RoleUser:
			out = appendUser(out, m)
			continue
		case llm.RoleAssistant:
			out = append(out, m)
			if len(m.ToolCalls) == 0 {
				continue
			}
			results := map[string]llm.Message{}
			j := i + 1
			for ; j < len(history) && history[j].Role == llm.RoleTool; j++ {
				if _, dup := results[history[j].ToolCallID]; !dup {
					results[history[j].ToolCallID] = history[j]
				}
			}
			for _, c := range m.ToolCalls {
				if res, ok := results[c.ID]; ok {
					out = append(out, res)
					continue
				}
				out = append(out, llm.ToolResultMessage(c.ID, c.Name, lostResult(c.Name).JSON()))
			}
			i = j - 1
		default:
			out = append(out, m)
		}
	}
	return out
}

// appendUser adds a user message, merging it into the previous one when
// that is also a user message (an interrupted turn followed by a new one),
// because providers reject two user messages in a row.
func appendUser(msgs []llm.Message, m llm.Message) []llm.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleUser {
		prev := msgs[n-1]
		merged := llm.Message{Role: llm.RoleUser}
		merged.Content = append(append(append(merged.Content, prev.Content...), llm.TextPart("\n\n")), m.Content...)
		msgs[n-1] = merged
		return msgs
	}
	return append(msgs, m)
}

// lost returns the results missing from the last round of history: the
// calls of the last assistant message that are not answered by the tool
// messages after it, answered as lost (lostResult), in call order. A
// process killed while that round's tools ran leaves them so; recording
// these when the session resumes keeps the stored conversation valid.
// Results missing from earlier rounds cannot be appended in their place,
// so Repair supplies them to each request instead.
func lost(history []llm.Message) []llm.Message {
	i := len(history) - 1
	for i >= 0 && history[i].Role == llm.RoleTool {
		i--
	}
	if i < 0 || history[i].Role != llm.RoleAssistant || len(history[i].ToolCalls) == 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range history[i+1:] {
		answered[m.ToolCallID] = true
	}
	var out []llm.Message
	for _, c := range history[i].ToolCalls {
		if !answered[c.ID] {
			out = append(out, llm.ToolResultMessage(c.ID, c.Name, lostResult(c.Name).JSON()))
		}
	}
	return out
}
