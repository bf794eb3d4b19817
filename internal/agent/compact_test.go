package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// shrinker compacts once, when forced or when the conversation has more
// than max messages, to a summary and the last user message.
type shrinker struct {
	max    int
	calls  int
	forced int
}

func (s *shrinker) Compact(_ context.Context, req agent.CompactRequest) (agent.Compacted, bool, error) {
	s.calls++
	if req.Force {
		s.forced++
	}
	if !req.Force && len(req.Messages) <= s.max {
		return agent.Compacted{}, false, nil
	}
	last := req.Messages[len(req.Messages)-1]
	return agent.Compacted{System: "new system", Note: "compressed",
		Messages: []llm.Message{llm.UserMessage("[summary] earlier work\n\n" + last.Text())}}, true, nil
}

func TestCompactorBeforeCallsAndOnOverflow(t *testing.T) {
	h := newHarness(t)
	s := &shrinker{max: 2}
	h.cfg.Compactor = s
	h.srv.Enqueue(llmtest.Reply{Text: "fine"})
	history := []llm.Message{llm.UserMessage("a"), llm.AssistantMessage("b"), llm.UserMessage("c"), llm.AssistantMessage("d")}
	var events []agent.Event
	res := agent.Run(context.Background(), h.cfg, history, llm.UserMessage("now this"), agent.SinkFunc(func(e agent.Event) { events = append(events, e) }))
	if res.Final != "fine" {
		t.Fatalf("result %+v", res)
	}
	req := h.srv.Requests()[0]
	if len(req.Messages) != 2 || req.Messages[0].Text() != "new system" || !strings.HasPrefix(req.Messages[1].Text(), "[summary]") {
		t.Errorf("the model got %d messages: %+v", len(req.Messages), req.Messages)
	}
	var compressed bool
	for _, e := range events {
		compressed = compressed || (e.Kind == agent.EventCompressed && e.Text == "compressed")
	}
	if !compressed {
		t.Error("no compressed event")
	}

	// A request the provider refuses as too long is compressed by force
	// and sent once more.
	h2 := newHarness(t)
	s2 := &shrinker{max: 100}
	h2.cfg.Compactor = s2
	h2.srv.Enqueue(
		llmtest.Reply{Status: 400, Error: &llmtest.ErrorReply{Type: "invalid_request_error", Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens."}},
		llmtest.Reply{Text: "fits now"},
	)
	res = agent.Run(context.Background(), h2.cfg, history, llm.UserMessage("again"), nil)
	if res.Final != "fits now" || s2.forced != 1 {
		t.Errorf("after an overflow: result %+v, forced %d", res, s2.forced)
	}
}
