package llmtest

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// checkConversation checks a decoded conversation against the rules hermes
// keeps whatever the wire: user and assistant alternate, every tool call has
// a unique id and is answered by exactly one tool result before the next
// user or assistant message, and every tool result answers a call of the
// assistant message before it. Problems point at wire positions.
//
// Anthropic's alternation rule is checked on the wire roles instead (see
// decodeAnthropic), because there tool results are user turns.
func checkConversation(r *Request) []problem {
	var ps []problem
	if r.API != AnthropicMessages {
		ps = append(ps, checkAlternation(r)...)
	}
	ps = append(ps, checkCallIDs(r)...)
	if !r.stateful {
		ps = append(ps, checkPairing(r)...)
	}
	return ps
}

// checkAlternation reports two user or two assistant messages in a row.
// System messages are passed over, and tool results separate an assistant
// message from the next one.
func checkAlternation(r *Request) []problem {
	var ps []problem
	prev := llm.Role("")
	for i, m := range r.Messages {
		if m.Role == llm.RoleSystem {
			continue
		}
		if m.Role == prev && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) {
			ps = append(ps, problem{r.wire[i], fmt.Sprintf("two %s messages in a row", m.Role)})
		}
		prev = m.Role
	}
	return ps
}

// checkCallIDs reports tool calls without an id and ids used twice.
func checkCallIDs(r *Request) []problem {
	var ps []problem
	first := map[string]int{}
	for i, m := range r.Messages {
		for _, c := range m.ToolCalls {
			switch at, seen := first[c.ID]; {
			case c.ID == "":
				ps = append(ps, problem{r.wire[i], fmt.Sprintf("tool call to %q has no id", c.Name)})
			case seen:
				ps = append(ps, problem{r.wire[i], fmt.Sprintf("tool call id %q used twice (first at %s[%d])", c.ID, r.listName(), at)})
			default:
				first[c.ID] = r.wire[i]
			}
		}
	}
	return ps
}

// checkPairing reports tool results that answer no open call, calls
// answered twice, and calls left without a result.
func checkPairing(r *Request) []problem {
	var (
		ps       []problem
		open     []llm.ToolCall // calls of the last assistant message
		openAt   int
		answered map[string]bool
	)
	closeTurn := func() {
		for _, c := range open {
			if !answered[c.ID] {
				ps = append(ps, problem{openAt, fmt.Sprintf("tool call %q (%s) is never answered", c.ID, c.Name)})
			}
		}
		open = nil
	}
	isOpen := func(id string) bool {
		for _, c := range open {
			if c.ID == id {
				return true
			}
		}
		return false
	}
	for i, m := range r.Messages {
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant:
			closeTurn()
			if m.Role == llm.RoleAssistant {
				open, openAt, answered = m.ToolCalls, r.wire[i], map[string]bool{}
			}
		case llm.RoleTool:
			switch {
			case !isOpen(m.ToolCallID):
				ps = append(ps, problem{r.wire[i], fmt.Sprintf("tool result for %q answers no open call (no call with that id in the assistant message before it)", m.ToolCallID)})
			case answered[m.ToolCallID]:
				ps = append(ps, problem{r.wire[i], fmt.Sprintf("tool call %q answered twice", m.ToolCallID)})
			default:
				answered[m.ToolCallID] = true
			}
		}
	}
	closeTurn()
	return ps
}
