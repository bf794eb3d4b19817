package compress

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// envelopeOK renders a tool's ok envelope as hermes sends it.
func envelopeOK(t *testing.T, data any) string {
	t.Helper()
	b, err := marshal(map[string]any{"status": "ok", "data": data})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// conversation generates a tool-heavy conversation of about n messages:
// user asks, assistant tool calls, long tool results, replies. The last
// user ask is "task N: ..." and is followed by a tool exchange in
// progress.
func conversation(t *testing.T, n int) []llm.Message {
	t.Helper()
	var msgs []llm.Message
	call := 0
	for task := 1; len(msgs) < n; task++ {
		msgs = append(msgs, llm.UserMessage(fmt.Sprintf("task %d: fix the failing test in pkg%d", task, task)))
		for step := 0; step < 4 && len(msgs) < n-2; step++ {
			call++
			id := fmt.Sprintf("call_%d", call)
			args := fmt.Sprintf(`{"command":"go test ./pkg%d/... -run Step%d"}`, task, step)
			msgs = append(msgs, llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "terminal", Arguments: args}))
			out := strings.Repeat(fmt.Sprintf("ok   pkg%d/step%d  0.01s\n", task, step), 40)
			msgs = append(msgs, llm.ToolResultMessage(id, "terminal",
				envelopeOK(t, map[string]any{"output": out, "exit_code": 0, "cwd": "/src"})))
		}
		msgs = append(msgs, llm.AssistantMessage(fmt.Sprintf("Task %d is done.", task)))
	}
	return msgs
}

// recorder is a Summarizer that answers from a script and keeps every
// request it was given.
type recorder struct {
	mu    sync.Mutex
	reqs  []SummaryRequest
	reply func(SummaryRequest) (string, error)
}

func (r *recorder) Summarize(_ context.Context, req SummaryRequest) (string, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.reply(req)
}

func (r *recorder) requests() []SummaryRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]SummaryRequest(nil), r.reqs...)
}

// goodSummary is a summary with every heading.
func goodSummary(goal string) string {
	return "## Goal\n" + goal + "\n\n## Constraints & Preferences\n- none\n\n## Progress\n### Done\n- tests ran\n### In Progress\n- the current task\n### Blocked\n- nothing\n\n" +
		"## Key Decisions\n- none\n\n## Relevant Files\n- pkg1/a.go\n\n## Next Steps\n- continue\n\n## Critical Context\n- exit 0"
}

// lastUserText returns the text of the last user message of msgs.
func lastUserText(msgs []llm.Message) string {
	if i := lastUser(msgs); i >= 0 {
		return msgs[i].Text()
	}
	return ""
}

// roughTokens is the estimator the tests use.
func roughTokens(m llm.Message) int { return llm.EstimateMessage(m) }
