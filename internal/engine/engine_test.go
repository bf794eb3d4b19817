package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// echoTool returns its text argument.
type echoTool struct{}

func (echoTool) Spec() tool.Spec {
	return tool.Spec{Name: "echo", Description: "Echoes text.", ParallelSafe: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}
}

func (echoTool) Call(_ context.Context, args json.RawMessage) (any, error) {
	var a struct{ Text string }
	json.Unmarshal(args, &a)
	return a.Text, nil
}

func newEngine(t *testing.T) (*engine.Engine, *llmtest.Server, session.Store) {
	t.Helper()
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{
		Store:  st,
		Models: model(srv),
		Tools:  engine.Tools{Registry: registry(t, echoTool{})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
	})
	t.Cleanup(e.Close)
	return e, srv, st
}

func TestTurnsShareOneSession(t *testing.T) {
	e, srv, st := newEngine(t)
	ctx := context.Background()
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "First."},
		llmtest.Reply{Text: "Second."},
	)
	first, err := e.Turn(ctx, "", engine.Input{Text: "Say hi\nthen more", Source: "test"}, nil)
	if err != nil || first.Stopped != agent.StopDone || first.Final != "First." {
		t.Fatalf("first turn: %v %+v", err, first)
	}
	second, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "Again"}, nil)
	if err != nil || second.Final != "Second." {
		t.Fatalf("second turn: %v %+v", err, second)
	}
	s, err := st.Get(ctx, first.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != "test" || s.Title != "Say hi" || s.MessageCount != 6 || s.ToolCallCount != 1 || s.InputTokens == 0 {
		t.Errorf("session = %+v", s)
	}
	reqs := srv.Requests()
	if reqs[0].Messages[0].Text() != reqs[2].Messages[0].Text() {
		t.Errorf("the system prompt changed between turns: %q then %q", reqs[0].Messages[0].Text(), reqs[2].Messages[0].Text())
	}
	if n := len(reqs[2].Messages); n != 6 {
		t.Errorf("the second turn sent %d messages, want system, the first turn's 4 and the new one", n)
	}
}

func TestUnknownSession(t *testing.T) {
	e, _, _ := newEngine(t)
	_, err := e.Turn(context.Background(), "20990101_000000_nope", engine.Input{Text: "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func TestContinueUnansweredMessage(t *testing.T) {
	e, srv, st := newEngine(t)
	ctx := context.Background()
	s := &session.Session{Source: "cli"}
	if err := st.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, s.ID, &session.Message{Message: llm.UserMessage("left unanswered")}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply{Text: "answered"})
	res, err := e.Turn(ctx, s.ID, engine.Input{}, nil)
	if err != nil || res.Final != "answered" {
		t.Fatalf("continuing an unanswered message: %v %+v", err, res)
	}
	if got := srv.Requests()[0].LastUserText(); got != "left unanswered" {
		t.Errorf("the model was sent %q", got)
	}
	if _, err := e.Turn(ctx, "", engine.Input{}, nil); err == nil {
		t.Error("an empty message in a new session was accepted")
	}
}

func TestTurnsInOneSessionDoNotOverlap(t *testing.T) {
	e, srv, _ := newEngine(t)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "zero"})
	first, err := e.Turn(ctx, "", engine.Input{Text: "start"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	active, most := 0, 0
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		active++
		most = max(most, active)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		active--
		mu.Unlock()
		return llmtest.Reply{Text: "ok"}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "parallel"}, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d turns of one session ran at once, want 1", most)
	}
}

// TestSystemPromptKeptAcrossProcesses: a session resumed by another engine
// (another process) sends the prompt it started with, not a new one, so
// memory written meanwhile waits for the next session and the provider's
// prefix cache keeps hitting.
func TestSystemPromptKeptAcrossProcesses(t *testing.T) {
	e, srv, st := newEngine(t)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	first, err := e.Turn(ctx, "", engine.Input{Text: "hi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	started, err := st.SystemPrompt(ctx, first.SessionID)
	if err != nil || !strings.HasPrefix(started, "You are a test.") {
		t.Fatalf("recorded prompt = %q, %v", started, err)
	}
	other := engine.New(engine.Options{
		Store:  st,
		Models: model(srv),
		Tools:  engine.Tools{Registry: tool.NewRegistry()},
		Prompt: engine.PromptSources{Home: soulHome(t, "A newer prompt, with new memory.")},
	})
	t.Cleanup(other.Close)
	if _, err := other.Turn(ctx, first.SessionID, engine.Input{Text: "again"}, nil); err != nil {
		t.Fatal(err)
	}
	fresh, err := other.Turn(ctx, "", engine.Input{Text: "new session"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got := reqs[1].Messages[0].Text(); got != started {
		t.Errorf("the resumed session sent the prompt %q, want the one it started with", got)
	}
	if got := reqs[2].Messages[0].Text(); !strings.HasPrefix(got, "A newer prompt, with new memory.") {
		t.Errorf("a new session sent the prompt %q", got)
	}
	if fresh.SessionID == first.SessionID {
		t.Error("the new turn reused the session")
	}
}

func TestRecallGoesBeforeTheFirstMessageOnly(t *testing.T) {
	srv := llmtest.New(t)
	st, db := openStore(t)
	fs := facts.New(db, facts.Options{})
	ctx := context.Background()
	if _, err := fs.Add(ctx, []facts.Fact{{Kind: facts.KindPreference, Subject: "deploy day", Content: "The user deploys on Fridays.", SourceSession: "old"}}); err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Options{
		Store:    st,
		Models:   model(srv),
		Tools:    engine.Tools{Registry: tool.NewRegistry()},
		LongTerm: &engine.LongTerm{Store: fs},
	})
	t.Cleanup(e.Close)
	srv.Enqueue(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"})
	first, err := e.Turn(ctx, "", engine.Input{Text: "which day do I deploy?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "and why deploy then?"}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got := reqs[0].LastUserText(); !strings.HasPrefix(got, "<recalled-memory>") || !strings.Contains(got, "Fridays") || !strings.HasSuffix(got, "which day do I deploy?") {
		t.Errorf("first message = %q", got)
	}
	if got := reqs[1].LastUserText(); got != "and why deploy then?" {
		t.Errorf("second message = %q; recall is for the first message only", got)
	}
	// With no model to extract with, ending the session recalls nothing
	// new and asks nobody.
	if err := e.EndSession(ctx, first.SessionID, "exit"); err != nil {
		t.Fatal(err)
	}
	if err := e.Drain(ctx); err != nil || len(srv.Requests()) != 2 {
		t.Errorf("after the end: %v, %d model calls, want the 2 turns", err, len(srv.Requests()))
	}
}
