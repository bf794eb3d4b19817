package gwstore

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestSeenOnce: an event is first once; a redelivery, also through
// another store on the same file (another process, or after a restart),
// is not; the same id on another platform is another event.
func TestSeenOnce(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		seen := func(s *Store, platform, id string) bool {
			t.Helper()
			first, err := s.Seen(ctx, platform, id, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return first
		}
		if !seen(s, "telegram", "100") {
			t.Fatal("a new event is not first")
		}
		if seen(s, "telegram", "100") {
			t.Error("a redelivered event is first again")
		}
		if seen(storeAt(t, x, clk), "telegram", "100") {
			t.Error("a redelivered event is first again in another process")
		}
		if !seen(s, "email", "100") {
			t.Error("the same id on another platform is not first")
		}
		clk.Advance(59 * time.Minute)
		if seen(s, "telegram", "100") {
			t.Error("a redelivery within the ttl is first")
		}
		clk.Advance(time.Minute)
		if !seen(s, "telegram", "100") {
			t.Error("an id after its ttl is not first")
		}
	})
}

// TestSeenConcurrent: of many deliveries of one event at once, from two
// processes, exactly one is first.
func TestSeenConcurrent(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		stores := []*Store{s, storeAt(t, x, clk)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		firsts := 0
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				first, err := stores[i%2].Seen(t.Context(), "telegram", "7", time.Hour)
				if err != nil {
					t.Error(err)
				}
				if first {
					mu.Lock()
					firsts++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if firsts != 1 {
			t.Errorf("%d deliveries were first, want 1", firsts)
		}
	})
}

// TestSeenPrunesBounded: expired rows go a bounded batch per call, so a
// backlog costs no single call much and still drains.
func TestSeenPrunesBounded(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for i := range 3 * pruneBatch {
			if _, err := s.Seen(ctx, "telegram", fmt.Sprint(i), time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(time.Hour)
		rows := func() int {
			var n int
			if err := s.read.QueryRow(`SELECT count(*) FROM gateway_seen`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		s.Seen(ctx, "telegram", "new", time.Minute)
		if got, want := rows(), 2*pruneBatch+1; got != want {
			t.Errorf("after one call %d rows, want %d (one batch pruned)", got, want)
		}
		s.Seen(ctx, "telegram", "new2", time.Minute)
		s.Seen(ctx, "telegram", "new3", time.Minute)
		if got, want := rows(), 3; got != want {
			t.Errorf("after three calls %d rows, want %d", got, want)
		}
	})
}

// TestSeenRejects: an event without platform or id, or a ttl that is not
// positive, is an error naming what is wrong.
func TestSeenRejects(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		for _, c := range []struct {
			platform, id string
			ttl          time.Duration
			want         string
		}{
			{"", "1", time.Hour, "empty platform"},
			{"telegram", "", time.Hour, "empty event id"},
			{"telegram", "1", 0, "ttl 0s"},
			{"telegram", "1", -time.Second, "ttl -1s"},
		} {
			if _, err := s.Seen(t.Context(), c.platform, c.id, c.ttl); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Seen(%q, %q, %s) = %v, want an error with %q", c.platform, c.id, c.ttl, err, c.want)
			}
		}
	})
}
