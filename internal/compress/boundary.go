package compress

import "github.com/hermes-go/hermes/internal/llm"

// bounds splits a conversation into head msgs[:Head], middle
// msgs[Head:Tail] and tail msgs[Tail:].
type bounds struct {
	Head, Tail int
	// Prune is where the tail sized by its budget starts, before it was
	// moved back to the last user message: phase 1 applies before it, so
	// that a long run of tool calls after one request still shrinks.
	Prune int
}

// boundaryRules are the inputs of phase 2.
type boundaryRules struct {
	// ProtectFirstN is the head size before the first compression.
	ProtectFirstN int
	// MinTail is the fewest messages the tail keeps, whatever their
	// tokens.
	MinTail int
	// Compressed says the conversation already holds a summary: then no
	// head is kept (the system prompt, added by the caller, is the head).
	Compressed bool
	// TailTokens is the token budget of the tail.
	TailTokens int
	// Estimate sizes a message in tokens.
	Estimate func(llm.Message) int
}

// findBounds applies phase 2. The head is the first ProtectFirstN messages
// (none once compressed), extended over the results of its last calls so
// that no tool exchange is split. The tail is as many trailing messages as
// fit TailTokens, at least MinTail (and MinTailMessages), moved back so that it starts
// on the assistant message whose calls its first results answer, and back
// again to include the last user message. A tail reaching into the head
// leaves the middle empty.
func findBounds(msgs []llm.Message, r boundaryRules) bounds {
	n := len(msgs)
	head := 0
	if !r.Compressed {
		head = min(max(r.ProtectFirstN, 0), n)
		for head > 0 && head < n && msgs[head].Role == llm.RoleTool {
			head++
		}
	}

	tail := n
	used := 0
	for tail > 0 {
		cost := r.Estimate(msgs[tail-1])
		if n-tail >= max(r.MinTail, MinTailMessages) && used+cost > r.TailTokens {
			break
		}
		used += cost
		tail--
	}
	tail = alignBackward(msgs, tail)
	prune := max(tail, head)
	if u := lastUser(msgs); u >= 0 && u < tail {
		tail = u
	}
	if tail < head {
		tail = head
	}
	return bounds{Head: head, Tail: tail, Prune: prune}
}

// alignBackward moves i back over tool results to the assistant message
// that made their calls, so that a tail never starts on a tool result.
func alignBackward(msgs []llm.Message, i int) int {
	for i > 0 && i < len(msgs) && msgs[i].Role == llm.RoleTool {
		i--
	}
	return i
}

// lastUser returns the index of the last user message, or -1.
func lastUser(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return i
		}
	}
	return -1
}
