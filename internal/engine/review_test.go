package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tool"
)

// memoryTool stands in for the memory tool: it records what it was asked
// to save.
type memoryTool struct {
	mu    sync.Mutex
	saved []string
}

func (*memoryTool) Spec() tool.Spec {
	return tool.Spec{Name: "memory", Description: "Saves a note.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"},"target":{"type":"string"},"content":{"type":"string"}},"required":["content"]}`)}
}

func (m *memoryTool) Call(_ context.Context, args json.RawMessage) (any, error) {
	var a struct{ Content string }
	json.Unmarshal(args, &a)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved = append(m.saved, a.Content)
	return "saved", nil
}

func isReview(r llmtest.Request) bool {
	return strings.Contains(r.LastUserText(), "[Background review")
}

func TestBackgroundReview(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	mem := &memoryTool{}
	reg := registry(t, echoTool{}, mem)
	release := make(chan struct{})
	var reviewCalls atomic.Int32
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if !isReview(r) {
			return llmtest.Reply{Text: "answer"}
		}
		switch reviewCalls.Add(1) {
		case 1:
			<-release // the review is slow; the next turn must not wait for it
			return llmtest.Reply{ToolCalls: []llm.ToolCall{
				{Name: "memory", Arguments: `{"action":"add","target":"user","content":"Prefers short answers."}`},
				{Name: "echo", Arguments: `{"text":"not allowed here"}`},
			}}
		default:
			return llmtest.Reply{Text: "Saved one fact."}
		}
	})
	done := make(chan []string, 1)
	reviewed := func(_ string, saved []string) { done <- saved }
	e := engine.New(engine.Options{
		Store:  st,
		Models: model(srv),
		Tools:  engine.Tools{Registry: reg},
		Review: &engine.Review{Tools: []string{"memory"}, MemoryEvery: 2, SkillWriter: "skill_manage"},
	})
	t.Cleanup(e.Close)
	ctx := context.Background()
	first, err := e.Turn(ctx, "", engine.Input{Text: "one", Reviewed: reviewed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := first.SessionID
	if _, err := e.Turn(ctx, id, engine.Input{Text: "two", Reviewed: reviewed}, nil); err != nil {
		t.Fatal(err)
	}
	// The review is due after the second turn and blocks in the model;
	// the third turn goes ahead.
	third, err := e.Turn(ctx, id, engine.Input{Text: "three", Reviewed: reviewed}, nil)
	if err != nil || third.Final != "answer" {
		t.Fatalf("a turn while the review runs: %v %+v", err, third)
	}
	close(release)
	select {
	case saved := <-done:
		if len(saved) != 1 || saved[0] != "updated the user profile" {
			t.Errorf("the review reported %q", saved)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the review did not finish")
	}
	if len(mem.saved) != 1 || mem.saved[0] != "Prefers short answers." {
		t.Errorf("memory saved %q", mem.saved)
	}
	// The disallowed call was refused, and the review never reached the
	// user's session.
	var second llmtest.Request
	for _, r := range srv.Requests() {
		if isReview(r) {
			second = r
		}
	}
	var refused bool
	for _, m := range second.Messages {
		if m.Role == llm.RoleTool && strings.Contains(m.Text(), "not available in a background review") {
			refused = true
		}
	}
	if !refused {
		t.Error("the review's echo call was not refused")
	}
	msgs, err := st.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 {
		t.Errorf("the session holds %d messages, want the 3 turns' 6: the review must not write to it", len(msgs))
	}
	for _, m := range msgs {
		if strings.Contains(m.Text(), "Background review") {
			t.Error("the review's prompt reached the user's session")
		}
	}
}

// skillTool stands in for skill_manage.
type skillTool struct{ created atomic.Int32 }

func (*skillTool) Spec() tool.Spec {
	return tool.Spec{Name: "skill_manage", Description: "Saves a skill.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"},"name":{"type":"string"}},"required":["action","name"]}`)}
}

func (s *skillTool) Call(context.Context, json.RawMessage) (any, error) {
	s.created.Add(1)
	return "ok", nil
}

// TestReviewAfterToolIterations: a long tool-using turn makes a skill
// review due; the review is asked about skills and saves one.
func TestReviewAfterToolIterations(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	sk := &skillTool{}
	reg := registry(t, echoTool{}, sk)
	var mu sync.Mutex
	var reviewPrompt string
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if isReview(r) {
			mu.Lock()
			first := reviewPrompt == ""
			reviewPrompt = r.LastUserText()
			mu.Unlock()
			if first {
				return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "skill_manage", Arguments: `{"action":"create","name":"rotate-logs"}`}}}
			}
			return llmtest.Reply{Text: "Saved."}
		}
		// Three tool iterations, then the answer.
		if n := strings.Count(string(r.Body), `"role":"tool"`); n < 3 {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: `{"text":"step"}`}}}
		}
		return llmtest.Reply{Text: "Logs rotated."}
	})
	done := make(chan []string, 1)
	e := engine.New(engine.Options{
		Store:  st,
		Models: model(srv),
		Tools:  engine.Tools{Registry: reg},
		Review: &engine.Review{Tools: []string{"skill_manage"}, SkillEvery: 3, SkillWriter: "skill_manage"},
	})
	t.Cleanup(e.Close)
	in := engine.Input{Text: "rotate the logs", Reviewed: func(_ string, saved []string) { done <- saved }}
	if _, err := e.Turn(context.Background(), "", in, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case saved := <-done:
		if len(saved) != 1 || saved[0] != "saved skill rotate-logs" {
			t.Errorf("the review reported %q", saved)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no review after a turn of 4 iterations")
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(reviewPrompt, "Skills:") || strings.Contains(reviewPrompt, "Memory:") {
		t.Errorf("the review prompt = %q; want the skills part only", reviewPrompt)
	}
	if sk.created.Load() != 1 {
		t.Errorf("skill_manage ran %d times", sk.created.Load())
	}
}
