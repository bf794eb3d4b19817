package compress

import (
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// Validate checks msgs against the protocol rules the agent loop keeps and
// every model vendor enforces: the first message is from the user; user and
// assistant messages alternate, tool results separating an assistant
// message from the next; every tool call has a unique id and is answered
// exactly once by a tool result that follows its assistant message before
// the next user or assistant message; no tool result answers anything
// else. System messages are passed over. It returns every problem found,
// each naming the message index.
func Validate(msgs []llm.Message) error {
	var errs []error
	bad := func(i int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("message %d: %s", i, fmt.Sprintf(format, args...)))
	}
	var (
		prev     llm.Role
		first    = true
		ids      = map[string]int{}
		open     []llm.ToolCall
		openAt   int
		answered map[string]bool
	)
	closeTurn := func() {
		for _, c := range open {
			if !answered[c.ID] {
				bad(openAt, "tool call %q (%s) is never answered", c.ID, c.Name)
			}
		}
		open = nil
	}
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			continue
		case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
		default:
			bad(i, "unknown role %q", m.Role)
			continue
		}
		if first && m.Role != llm.RoleUser {
			bad(i, "the conversation starts with a %s message, not a user message", m.Role)
		}
		first = false
		if m.Role == prev && m.Role != llm.RoleTool {
			bad(i, "two %s messages in a row", m.Role)
		}
		prev = m.Role
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant:
			closeTurn()
			if m.Role == llm.RoleUser && len(m.ToolCalls) > 0 {
				bad(i, "a user message carries tool calls")
			}
			open, openAt, answered = m.ToolCalls, i, map[string]bool{}
			for _, c := range m.ToolCalls {
				if c.ID == "" {
					bad(i, "tool call to %q has no id", c.Name)
					continue
				}
				if at, dup := ids[c.ID]; dup {
					bad(i, "tool call id %q used twice (first at message %d)", c.ID, at)
				}
				ids[c.ID] = i
			}
		case llm.RoleTool:
			isOpen := false
			for _, c := range open {
				isOpen = isOpen || c.ID == m.ToolCallID
			}
			switch {
			case !isOpen:
				bad(i, "tool result for %q answers no call of the assistant message before it", m.ToolCallID)
			case answered[m.ToolCallID]:
				bad(i, "tool call %q answered twice", m.ToolCallID)
			default:
				answered[m.ToolCallID] = true
			}
		}
	}
	closeTurn()
	return errors.Join(errs...)
}
