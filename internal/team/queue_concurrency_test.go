package team

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestConcurrentClaimsNeverShareATask claims from many goroutines through
// two Stores, each on its own handle to one database as two processes
// would be: every task is claimed exactly once.
func TestConcurrentClaimsNeverShareATask(t *testing.T) {
	dbtest.EachTarget(t, testConcurrentClaims)
}

func testConcurrentClaims(t *testing.T, x dbtest.Target) {
	clk := clock.NewFake(epoch)
	stores := []*Store{NewStore(x.Open(t), StoreOptions{Clock: clk}), NewStore(x.Open(t), StoreOptions{Clock: clk})}
	ctx := context.Background()
	r := mustRun(t, stores[0])
	const tasks = 60
	for range tasks {
		mustPost(t, stores[0], r.ID, "search")
	}
	var mu sync.Mutex
	claimedBy := map[int64]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[g%2]
			holder := fmt.Sprintf("g%d", g)
			for {
				tk, ok, err := s.Claim(ctx, "search", holder, time.Minute)
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				if prev, dup := claimedBy[tk.ID]; dup {
					errs <- fmt.Errorf("task %d claimed by %s and %s", tk.ID, prev, holder)
				}
				claimedBy[tk.ID] = holder
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(claimedBy) != tasks {
		t.Fatalf("%d tasks claimed, want %d", len(claimedBy), tasks)
	}
	ts, _ := stores[1].Tasks(ctx, r.ID)
	for _, tk := range ts {
		if tk.State != StateClaimed || tk.Attempts != 1 || tk.Holder != claimedBy[tk.ID] {
			t.Fatalf("task %d: %s, %d attempts, holder %q (claimed by %q)", tk.ID, tk.State, tk.Attempts, tk.Holder, claimedBy[tk.ID])
		}
	}
}

// TestWaitWakes checks that Wait returns on a finish made through the
// same Store at once, and on one made by another process at its next poll.
func TestWaitWakes(t *testing.T) {
	dbtest.EachTarget(t, testWaitWakes)
}

func testWaitWakes(t *testing.T, x dbtest.Target) {
	clk := clock.NewFake(epoch)
	s := NewStore(x.Open(t), StoreOptions{Clock: clk, PollInterval: 5 * time.Second})
	other := NewStore(x.Open(t), StoreOptions{Clock: clk})
	ctx := context.Background()
	r := mustRun(t, s)
	a := mustPost(t, s, r.ID, "search")
	b := mustPost(t, s, r.ID, "search")

	done := make(chan []Task)
	go func() {
		ts, err := s.Wait(ctx, r.ID, []int64{a.ID})
		if err != nil {
			t.Error(err)
		}
		done <- ts
	}()
	clk.BlockUntil(1)
	mustClaim(t, s, "search", "h")
	if err := s.Complete(ctx, a.ID, "h", Result{Summary: "ok"}); err != nil {
		t.Fatal(err)
	}
	if ts := <-done; ts[0].State != StateDone || ts[0].Summary != "ok" {
		t.Fatalf("waited: %+v", ts)
	}

	go func() {
		ts, err := s.Wait(ctx, r.ID, []int64{a.ID, b.ID})
		if err != nil {
			t.Error(err)
		}
		done <- ts
	}()
	clk.BlockUntil(1)
	mustClaim(t, other, "search", "h")
	if err := other.Complete(ctx, b.ID, "h", Result{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("Wait saw another process's finish before polling")
	default:
	}
	clk.Advance(5 * time.Second)
	if ts := <-done; ts[1].State != StateDone {
		t.Fatalf("waited: %+v", ts)
	}
}

func TestWaitRefusesOtherRunsAndStopsWithCtx(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		r1, r2 := mustRun(t, s), mustRun(t, s)
		a := mustPost(t, s, r1.ID, "search")
		b := mustPost(t, s, r2.ID, "search")
		_, err := s.Wait(context.Background(), r1.ID, []int64{a.ID, b.ID})
		wantErr(t, err, ErrNotFound)

		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() {
			_, err := s.Wait(ctx, r1.ID, []int64{a.ID})
			errc <- err
		}()
		clk.BlockUntil(1)
		cancel()
		wantErr(t, <-errc, context.Canceled)
	})
}
