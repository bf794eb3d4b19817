package agent

import (
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Repair returns history made safe to send: every tool call is answered by
// exactly one result right after its assistant message (a call left
// unanswered gets an "interrupted" result; a result for no call is
// dropped), and consecutive user messages are merged into one. A
// conversation recorded by Run is already in this shape; Repair guards
// against one written by an older hermes, edited by hand, or cut by a
// crash between a user message and the reply. The input is not modified.
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
				out = append(out, llm.ToolResultMessage(c.ID, c.Name,
					tool.Fail(tool.CodeInterrupted, "the call was interrupted before it returned a result").JSON()))
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
