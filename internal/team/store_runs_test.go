package team

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// A run keeps what its runner needs to resume it and show it: the spec it
// began with, its holder, the coordinator's session, answer and tokens,
// and the delivery, and Runs lists the newest first.
func TestRunKeepsItsRecord(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r, err := s.StartRun(ctx, Start{Team: "research", Goal: "report", Spec: `{"roles":["analyst"]}`, Holder: "host/1"})
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		later := mustRun(t, s)
		if err := s.SetRunSession(ctx, r.ID, "sess-1"); err != nil {
			t.Fatal(err)
		}
		stale := r
		stale.Holder = "host/9"
		if err := s.HoldRun(ctx, stale, "host/2", 0); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("taking a run from a holder it does not have: %v", err)
		}
		if err := s.HoldRun(ctx, r, "host/2", 0); err != nil {
			t.Fatal(err)
		}
		if err := s.EndRun(ctx, r.ID, Outcome{State: RunDone, Answer: "the report", Tokens: 120}); err != nil {
			t.Fatal(err)
		}
		if err := s.EndRun(ctx, r.ID, Outcome{State: RunDone}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("ending a finished run again: %v", err)
		}
		if err := s.MarkDelivered(ctx, r.ID, "webhook"); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetRun(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec != `{"roles":["analyst"]}` || got.Holder != "host/2" || got.SessionID != "sess-1" || got.Answer != "the report" ||
			got.Tokens != 120 || got.State != RunDone || got.Delivery != "webhook" || got.DeliveredAt.IsZero() || got.FinishedAt.IsZero() {
			t.Fatalf("run: %+v", got)
		}
		runs, err := s.Runs(ctx, 10)
		if err != nil || len(runs) != 2 || runs[0].ID != later.ID || runs[1].ID != r.ID {
			t.Fatalf("runs: %+v, %v", runs, err)
		}
		if err := s.EndRun(ctx, later.ID, Outcome{State: RunCancelled}); err == nil {
			t.Fatal("EndRun took cancelled; CancelRun cancels")
		}
	})
}

// A task posted again with the same role, description and inputs is the
// one the run has, unless that one failed; then it is posted anew.
func TestPostOnceReturnsTheTaskTheRunHas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		done := mustClaim(t, s, "search", "h")
		if err := s.Complete(ctx, done.ID, "h", Result{Summary: "found", SessionID: "s-a", Tokens: 42}); err != nil {
			t.Fatal(err)
		}
		again, had, err := s.PostOnce(ctx, r.ID, Post{Role: "search", Description: a.Description})
		if err != nil || !had || again.ID != a.ID || again.State != StateDone || again.SessionID != "s-a" || again.Tokens != 42 {
			t.Fatalf("posted again: %+v had=%v err=%v", again, had, err)
		}
		other, had, err := s.PostOnce(ctx, r.ID, Post{Role: "search", Description: a.Description, Inputs: []int64{a.ID}})
		if err != nil || had || other.ID == a.ID {
			t.Fatalf("other inputs: %+v had=%v err=%v", other, had, err)
		}
		if _, _, err := s.PostOnce(ctx, r.ID, Post{Role: "flaky", Description: "x", MaxAttempts: 1}); err != nil {
			t.Fatal(err)
		}
		ft := mustClaim(t, s, "flaky", "h")
		if _, err := s.Fail(ctx, ft.ID, "h", "boom"); err != nil {
			t.Fatal(err)
		}
		retry, had, err := s.PostOnce(ctx, r.ID, Post{Role: "flaky", Description: "x", MaxAttempts: 1})
		if err != nil || had || retry.ID == ft.ID || retry.State != StateReady {
			t.Fatalf("posting a failed task again: %+v had=%v err=%v", retry, had, err)
		}
		other2 := mustRun(t, s)
		if _, had, _ := s.PostOnce(ctx, other2.ID, Post{Role: "search", Description: a.Description}); had {
			t.Fatal("another run's task was returned")
		}
	})
}

// Workers of one run do not take another run's tasks of the same role.
func TestClaimInKeepsToItsRun(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r1, r2 := mustRun(t, s), mustRun(t, s)
		a := mustPost(t, s, r1.ID, "search")
		b := mustPost(t, s, r2.ID, "search")
		got, ok, err := s.ClaimIn(ctx, r2.ID, "search", "h2", time.Minute)
		if err != nil || !ok || got.ID != b.ID {
			t.Fatalf("run 2 claimed %+v ok=%v err=%v; want task %d", got, ok, err, b.ID)
		}
		if _, ok, _ := s.ClaimIn(ctx, r2.ID, "search", "h3", time.Minute); ok {
			t.Fatal("run 2's worker took run 1's task")
		}
		if got, ok, _ := s.Claim(ctx, "search", "h1", time.Minute); !ok || got.ID != a.ID {
			t.Fatalf("any-run claim: %+v", got)
		}
	})
}
