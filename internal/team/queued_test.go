package team

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
)

// TestQueued counts the tasks waiting and ready, not those claimed or
// finished.
func TestQueued(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		count := func(want int) {
			t.Helper()
			n, err := s.Queued(ctx)
			if err != nil || n != want {
				t.Fatalf("Queued = %d, %v; want %d", n, err, want)
			}
		}
		count(0)
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "writer")
		mustPost(t, s, r.ID, "editor", a.ID)
		count(2)
		mustClaim(t, s, "writer", "w1")
		count(1)
	})
}
