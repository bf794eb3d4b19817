package app

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
)

// The API reads and deletes only the sessions it made, and learns where
// a compressed one went on.
func TestAPIConversations(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	parent, terminal := &session.Session{Source: apiSource, Model: "m"}, &session.Session{Source: "cli"}
	for _, s := range []*session.Session{parent, terminal} {
		if err := store.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := store.Append(ctx, s.ID, &session.Message{Message: llm.UserMessage("hi")}, &session.Message{Message: llm.AssistantMessage("hello")}); err != nil {
			t.Fatal(err)
		}
	}
	c := apiConversations{store: store}
	conv, err := c.Conversation(ctx, parent.ID)
	if err != nil || conv.Model != "m" || len(conv.Messages) != 2 || conv.Messages[1].Text() != "hello" || conv.Messages[1].ID <= conv.Messages[0].ID || conv.ContinuedIn != "" {
		t.Fatalf("conversation = %+v, %v", conv, err)
	}
	child := &session.Session{Source: apiSource, ParentID: parent.ID}
	if err := store.Create(ctx, child); err != nil {
		t.Fatal(err)
	}
	if conv, err := c.Conversation(ctx, parent.ID); err != nil || conv.ContinuedIn != child.ID {
		t.Errorf("after compression: %+v, %v", conv, err)
	}
	for _, id := range []string{terminal.ID, "no-such", ""} {
		var ae *api.Error
		if _, err := c.Conversation(ctx, id); !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
			t.Errorf("Conversation(%q) = %v", id, err)
		}
		if err := c.Delete(ctx, id); !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
			t.Errorf("Delete(%q) = %v", id, err)
		}
	}
	if _, err := store.Get(ctx, terminal.ID); err != nil {
		t.Errorf("the terminal session is gone: %v", err)
	}
	if err := c.Delete(ctx, parent.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(ctx, parent.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("after Delete: %v", err)
	}
}
