package team

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// serve runs w until the test ends or stop is called; stop returns once
// Serve has.
func serve(t *testing.T, w *Worker) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Serve(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

func TestWorkersRunAChainWithInputs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		b := mustPost(t, s, r.ID, "write", a.ID)
		serve(t, &Worker{Store: s, Role: "search", Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			return Result{Summary: "found", Artifacts: []Artifact{{Name: "hits", Kind: KindText, Content: "3 hits"}}}, nil
		}})
		var got []Artifact
		serve(t, &Worker{Store: s, Role: "write", Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			got = in
			return Result{Summary: "wrote " + in[0].Content}, nil
		}})
		ts, err := s.Wait(ctx, r.ID, []int64{b.ID})
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].State != StateDone || ts[0].Summary != "wrote 3 hits" {
			t.Fatalf("write task %+v", ts[0])
		}
		if len(got) != 1 || got[0].Task != a.ID || got[0].Name != "hits" {
			t.Fatalf("inputs %+v", got)
		}
	})
}

func TestWorkerRetriesUpToTheLimit(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a, err := s.Post(ctx, r.ID, Post{Role: "search", Description: "d", MaxAttempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		var runs atomic.Int32
		serve(t, &Worker{Store: s, Role: "search", Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			runs.Add(1)
			return Result{}, errors.New("boom")
		}})
		ts, err := s.Wait(ctx, r.ID, []int64{a.ID})
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].State != StateFailed || ts[0].Attempts != 2 || !strings.Contains(ts[0].Error, "attempt 2 of 2: boom") {
			t.Fatalf("task %+v", ts[0])
		}
		if n := runs.Load(); n != 2 {
			t.Fatalf("ran %d times, want 2", n)
		}
	})
}

// TestCrashedWorkersTaskIsClaimedAgain stops a worker in the middle of a
// task, as a crash would: nothing is recorded, and once the lease has run
// out another worker claims the task, which is then done and never run
// again.
func TestCrashedWorkersTaskIsClaimedAgain(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		started := make(chan struct{})
		stop := serve(t, &Worker{Store: s, Role: "search", Lease: 9 * time.Second, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			close(started)
			<-ctx.Done()
			return Result{}, ctx.Err()
		}})
		<-started
		stop()
		if tk := mustState(t, s, a.ID, StateClaimed); tk.Attempts != 1 {
			t.Fatalf("attempts %d", tk.Attempts)
		}

		var runs atomic.Int32
		serve(t, &Worker{Store: s, Role: "search", Lease: 9 * time.Second, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			runs.Add(1)
			return Result{Summary: "second try"}, nil
		}})
		clk.BlockUntil(1) // the new worker polls: the task is still leased
		mustState(t, s, a.ID, StateClaimed)
		clk.Advance(10 * time.Second)
		ts, err := s.Wait(ctx, r.ID, []int64{a.ID})
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].State != StateDone || ts[0].Attempts != 2 || ts[0].Summary != "second try" {
			t.Fatalf("task %+v", ts[0])
		}
		for range 3 {
			clk.BlockUntil(1)
			clk.Advance(time.Minute)
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the done task ran %d times", n)
		}
		mustState(t, s, a.ID, StateDone)
	})
}

// TestWorkerStopsWhenItLosesTheClaim cancels the run under a working
// worker: its next renewal finds the claim gone, Run's ctx ends with
// ErrLeaseLost, and nothing is recorded over the cancellation.
func TestWorkerStopsWhenItLosesTheClaim(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		started := make(chan struct{})
		cause := make(chan error, 1)
		serve(t, &Worker{Store: s, Role: "search", Lease: 9 * time.Second, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			close(started)
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return Result{Summary: "too late"}, nil
		}})
		<-started
		clk.BlockUntil(1) // the renewal's sleep
		if err := s.CancelRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(3 * time.Second)
		wantErr(t, <-cause, ErrLeaseLost)
		tk := mustState(t, s, a.ID, StateCancelled)
		if tk.Summary != "" {
			t.Fatalf("a lost claim recorded %q", tk.Summary)
		}
	})
}

func TestWorkerRenewsWhileRunning(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		started, finish := make(chan struct{}), make(chan struct{})
		serve(t, &Worker{Store: s, Role: "search", Lease: 9 * time.Second, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
			close(started)
			<-finish
			return Result{Summary: "long"}, nil
		}})
		<-started
		for range 10 { // 30 s of work, over three leases
			clk.BlockUntil(1)
			clk.Advance(3 * time.Second)
			if _, ok, err := s.Claim(ctx, "search", "thief", time.Minute); ok || err != nil {
				t.Fatalf("the task was taken from a renewing worker (err %v)", err)
			}
		}
		close(finish)
		ts, err := s.Wait(ctx, r.ID, []int64{a.ID})
		if err != nil || ts[0].State != StateDone || ts[0].Attempts != 1 {
			t.Fatalf("task %+v, %v", ts, err)
		}
	})
}
