package sqlite

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
)

// TestSessionAgent checks a session keeps the role agent it was created
// with, and that a session without one reads back empty.
func TestSessionAgent(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	with := &session.Session{Source: "cli", Agent: "analyst"}
	without := &session.Session{Source: "cli"}
	for _, sess := range []*session.Session{with, without} {
		if err := s.Create(ctx, sess); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, with.ID)
	if err != nil || got.Agent != "analyst" {
		t.Fatalf("agent = %q, %v; want analyst", got.Agent, err)
	}
	if got, err = s.Get(ctx, without.ID); err != nil || got.Agent != "" {
		t.Fatalf("agent = %q, %v; want none", got.Agent, err)
	}
}
