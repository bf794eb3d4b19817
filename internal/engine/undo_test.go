package engine_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
)

// An undone exchange is gone from the store and from every request after
// it, though the session's history and wire encoding were kept in this
// process; a tool call and its result go with the exchange.
func TestUndoDropsTheLastExchangeFromTheNextRequest(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{
		Store:  st,
		Models: model(srv),
		Tools:  engine.Tools{Registry: registry(t, echoTool{})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
	})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "re: " + r.LastUserText()} })
	turn := func(id, text string) string {
		t.Helper()
		res, err := e.Turn(ctx, id, engine.Input{Text: text, Source: "cli"}, nil)
		if err != nil {
			t.Fatalf("turn %q: %v", text, err)
		}
		return res.SessionID
	}
	sent := func() []string {
		reqs := srv.Requests()
		var texts []string
		for _, m := range reqs[len(reqs)-1].Messages[1:] {
			texts = append(texts, m.Text())
		}
		return texts
	}

	if _, err := e.Undo(ctx, ""); !errors.Is(err, engine.ErrNothingToUndo) {
		t.Errorf("Undo of no session: %v, want ErrNothingToUndo", err)
	}
	id := turn("", "one")
	turn(id, "secret plan")
	// The third exchange calls a tool, so the undone messages hold a
	// call and its result.
	st.Append(ctx, id, &session.Message{Message: llm.UserMessage("three")},
		&session.Message{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: `{}`}}}},
		&session.Message{Message: llm.ToolResultMessage("c1", "echo", "echoed")},
		&session.Message{Message: llm.AssistantMessage("done three")})

	undone, err := e.Undo(ctx, id)
	if err != nil || undone.Removed != 4 || undone.Text != "three" {
		t.Fatalf("Undo = %+v, %v; want 4 messages from \"three\"", undone, err)
	}
	undone, err = e.Undo(ctx, id)
	if err != nil || undone.Removed != 2 || undone.Text != "secret plan" {
		t.Fatalf("second Undo = %+v, %v; want 2 messages from \"secret plan\"", undone, err)
	}
	turn(id, "two")
	if got, want := sent(), []string{"one", "re: one", "two"}; !slices.Equal(got, want) {
		t.Errorf("the turn after Undo sent %q, want %q", got, want)
	}
	got, err := st.Get(ctx, id)
	if err != nil || got.MessageCount != 4 || got.ToolCallCount != 0 {
		t.Errorf("session after Undo: %+v, %v; want 4 messages, no tool calls", got, err)
	}

	for range 2 {
		if _, err := e.Undo(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Undo(ctx, id); !errors.Is(err, engine.ErrNothingToUndo) {
		t.Errorf("Undo of an empty session: %v, want ErrNothingToUndo", err)
	}
	if got, _ := st.Get(ctx, id); got.Title != "" {
		t.Errorf("title after undoing the first message = %q; it was made from that message", got.Title)
	}
	turn(id, "fresh start")
	if got, _ := st.Get(ctx, id); got.Title != "fresh start" {
		t.Errorf("title after the next message = %q, want it made from that message", got.Title)
	}
	if _, err := e.Undo(ctx, "no-such-session"); err == nil {
		t.Error("Undo of an unknown session succeeded")
	}
}

// A compressed session's summary, and what it carried, are not undone:
// the exchanges it summarizes are in the parent session.
func TestUndoStopsAtTheCompressionSummary(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: registry(t)}})
	t.Cleanup(e.Close)
	ctx := context.Background()
	child := &session.Session{Source: "cli"}
	if err := st.Create(ctx, child); err != nil {
		t.Fatal(err)
	}
	st.Append(ctx, child.ID, &session.Message{Message: llm.UserMessage(compress.SummaryMarker + "\n\nearlier work")},
		&session.Message{Message: llm.AssistantMessage("ok")})
	_, err := e.Undo(ctx, child.ID)
	if !errors.Is(err, engine.ErrNothingToUndo) {
		t.Fatalf("Undo across the summary: %v, want ErrNothingToUndo", err)
	}
	if msgs, _ := st.Messages(ctx, child.ID); len(msgs) != 2 {
		t.Errorf("the summary session has %d messages after a refused Undo, want 2", len(msgs))
	}
	st.Append(ctx, child.ID, &session.Message{Message: llm.UserMessage("after")}, &session.Message{Message: llm.AssistantMessage("re")})
	if u, err := e.Undo(ctx, child.ID); err != nil || u.Removed != 2 {
		t.Errorf("Undo after the summary = %+v, %v; want the 2 messages after it", u, err)
	}
}
