package compress

import (
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

// MinPrunedResultChars is the size past which an old tool result is
// replaced by a one-line description in phase 1; shorter results cost
// about as much as their description.
const MinPrunedResultChars = 200

// prune performs phase 1 on msgs[:end] and returns a new slice; msgs and
// its messages are not modified. Tool results longer than
// MinPrunedResultChars become one-line descriptions, or a reference to the
// first identical result of the same tool, and tool-call arguments longer
// than MaxArgumentChars are shrunk. It returns how many messages changed.
func prune(msgs []llm.Message, end int) ([]llm.Message, int) {
	out := make([]llm.Message, len(msgs))
	copy(out, msgs)
	calls := callIndex(msgs)
	seen := map[string]string{} // tool name + content -> first call id
	changed := 0
	for i := range min(end, len(out)) {
		m := out[i]
		switch m.Role {
		case llm.RoleTool:
			content := m.Text()
			if utf8.RuneCountInString(content) <= MinPrunedResultChars {
				continue
			}
			call := calls[m.ToolCallID]
			name := firstNonEmpty(m.Name, call.Name, "tool")
			key := name + "\x00" + content
			line := ""
			if first, dup := seen[key]; dup {
				line = "[same result as call " + first + "]"
			} else {
				seen[key] = m.ToolCallID
				line = describeResult(name, call.Arguments, content)
			}
			m.Content = []llm.Part{llm.TextPart(line)}
			out[i] = m
			changed++
		case llm.RoleAssistant:
			var shrunk []llm.ToolCall
			for j, c := range m.ToolCalls {
				if len(c.Arguments) <= MaxArgumentChars {
					continue
				}
				if shrunk == nil {
					shrunk = append([]llm.ToolCall(nil), m.ToolCalls...)
				}
				shrunk[j].Arguments = shrinkArguments(c.Arguments, MaxArgumentChars)
			}
			if shrunk != nil {
				m.ToolCalls = shrunk
				out[i] = m
				changed++
			}
		}
	}
	return out, changed
}

// callIndex maps every tool call id in msgs to its call.
func callIndex(msgs []llm.Message) map[string]llm.ToolCall {
	idx := map[string]llm.ToolCall{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			idx[c.ID] = c
		}
	}
	return idx
}
