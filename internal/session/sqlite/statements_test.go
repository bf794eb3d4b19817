package sqlite

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// A turn's lease and its session updates run statements prepared once:
// the second turn reuses the first one's, and they still do their work.
func TestTurnStatementsPreparedOnce(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	turn := func(id string) {
		t.Helper()
		if err := s.Create(ctx, &session.Session{ID: id, Source: "api"}); err != nil {
			t.Fatal(err)
		}
		l, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: id, Holder: "h/1", Now: now, TTL: time.Minute})
		if err != nil || !l.Held {
			t.Fatalf("lease of %s: %+v, %v", id, l, err)
		}
		if err := s.SetTitle(ctx, id, "title of "+id); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseLease(ctx, id, "h/1"); err != nil {
			t.Fatal(err)
		}
	}
	turn("a")
	first := maps.Clone(s.stmts.byQuery)
	if len(first) < 7 {
		t.Fatalf("%d statements prepared for the session's creation, its lease and its title, want 7: %v", len(first), slices.Collect(maps.Keys(first)))
	}
	turn("b")
	if !maps.Equal(first, s.stmts.byQuery) {
		t.Errorf("the second turn prepared its statements again: %d before, %d after", len(first), len(s.stmts.byQuery))
	}
	got, err := s.Get(ctx, "b")
	if err != nil || got.Title != "title of b" {
		t.Errorf("session b: title %q, %v", got.Title, err)
	}
	l, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: "b", Holder: "h/2", Now: now, TTL: time.Minute})
	if err != nil || !l.Held {
		t.Errorf("b's lease after it was released: %+v, %v; want it free", l, err)
	}
	if _, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: "nope", Holder: "h/1", Now: now, TTL: time.Minute}); err == nil {
		t.Error("a lease of a session that does not exist was taken")
	}
}
