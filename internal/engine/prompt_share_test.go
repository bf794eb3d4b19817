package engine_test

import (
	"testing"
	"unsafe"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A gateway starts a session per chat, and sessions started alike get
// the same prompt: the engine keeps one copy of its text for all of them,
// not one per session, which a thousand chats would multiply.
func TestSessionsStartedAlikeShareTheirPromptText(t *testing.T) {
	e, srv, _ := newEngine(t)
	srv.Handle(llmtest.Echo)
	var ids []string
	for range 3 {
		res, err := e.Turn(t.Context(), "", engine.Input{Text: "hi"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.SessionID)
	}
	first := e.CachedPrompt(ids[0])
	for _, id := range ids[1:] {
		p := e.CachedPrompt(id)
		if p == "" || p != first {
			t.Fatalf("sessions started alike got different prompts:\n%q\n%q", first, p)
		}
		if unsafe.StringData(p) != unsafe.StringData(first) {
			t.Errorf("session %s keeps a copy of its prompt (%d bytes) instead of sharing the text", id, len(p))
		}
	}
}
