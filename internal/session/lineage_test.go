package session_test

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
)

func TestNewestFollowsTheLineage(t *testing.T) {
	st := openTestStore(t)
	ctx := context.Background()
	root := &session.Session{Source: "cli"}
	if err := st.Create(ctx, root); err != nil {
		t.Fatal(err)
	}
	id := root.ID
	if got, err := session.Newest(ctx, st, id); err != nil || got != id {
		t.Errorf("Newest of a session without children = %q, %v; want itself", got, err)
	}
	for range 3 {
		child := &session.Session{Source: "cli", ParentID: id}
		if err := st.Create(ctx, child); err != nil {
			t.Fatal(err)
		}
		// A task the conversation delegated is a child of another
		// source, made later: not where the conversation goes on.
		if err := st.Create(ctx, &session.Session{Source: "delegate", ParentID: child.ID}); err != nil {
			t.Fatal(err)
		}
		id = child.ID
	}
	if got, err := session.Newest(ctx, st, root.ID); err != nil || got != id {
		t.Errorf("Newest = %q, %v; want the third compression %q", got, err, id)
	}
}
