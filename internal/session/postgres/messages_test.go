package postgres

import (
	"math"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// TestAroundAll: an n meaning "all of them" returns the whole session
// instead of overflowing the query's LIMIT.
func TestAroundAll(t *testing.T) {
	s := openStore(t)
	id := mustCreate(t, s)
	m := &session.Message{Message: llm.UserMessage("one")}
	if err := s.Append(t.Context(), id, m, &session.Message{Message: llm.UserMessage("two")}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{math.MaxInt, math.MaxInt64 - 1, -5} {
		msgs, err := s.Around(t.Context(), m.ID, n)
		want := 2
		if n < 0 {
			want = 1
		}
		if err != nil || len(msgs) != want {
			t.Errorf("Around(%d, %d) = %d messages, %v; want %d", m.ID, n, len(msgs), err, want)
		}
	}
}
