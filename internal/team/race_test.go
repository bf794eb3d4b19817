package team

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// race runs f from 8 goroutines, half through each of two Stores on
// their own handles to one database, as two replicas would, and returns
// what each returned.
func race[T any](t *testing.T, x dbtest.Target, f func(s *Store, g int) T) []T {
	t.Helper()
	stores := []*Store{NewStore(x.Open(t), replicaOptions), NewStore(x.Open(t), replicaOptions)}
	out := make([]T, 8)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range out {
		wg.Go(func() {
			<-start
			out[g] = f(stores[g%2], g)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// TestHoldRunRace: processes resuming the same run at once, on two
// replicas, take it from its dead holder once: one of them holds it and
// every other is told it lost.
func TestHoldRunRace(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		s := NewStore(x.Open(t), replicaOptions)
		r, err := s.StartRun(context.Background(), Start{Team: "research", Holder: "dead/1"})
		if err != nil {
			t.Fatal(err)
		}
		errs := race(t, x, func(s *Store, g int) error {
			return s.HoldRun(context.Background(), r, fmt.Sprintf("host/%d", g), time.Minute)
		})
		won := -1
		for g, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Errorf("host/%d and host/%d both took the run", won, g)
			case err == nil:
				won = g
			case !errors.Is(err, ErrLeaseLost):
				t.Errorf("host/%d: %v, want ErrLeaseLost", g, err)
			}
		}
		if got, _ := s.GetRun(context.Background(), r.ID); won < 0 || got.Holder != fmt.Sprintf("host/%d", won) {
			t.Fatalf("run held by %q; the winner was host/%d", got.Holder, won)
		}
	})
}

// TestPostOnceRace: a plan posted again by two replicas at once (a
// resumed coordinator and one it raced) makes each task once.
func TestPostOnceRace(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		s := NewStore(x.Open(t), replicaOptions)
		r := mustRun(t, s)
		ids := race(t, x, func(s *Store, g int) int64 {
			tk, _, err := s.PostOnce(context.Background(), r.ID, Post{Role: "search", Description: "find the sources"})
			if err != nil {
				t.Error(err)
			}
			return tk.ID
		})
		for g, id := range ids {
			if id != ids[0] {
				t.Errorf("poster %d got task %d, poster 0 task %d", g, id, ids[0])
			}
		}
		if ts, err := s.Tasks(context.Background(), r.ID); err != nil || len(ts) != 1 {
			t.Fatalf("the run has %d tasks (%v), want 1", len(ts), err)
		}
	})
}
