package team

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

func TestReadinessFollowsInputs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		b := mustPost(t, s, r.ID, "search")
		c := mustPost(t, s, r.ID, "write", a.ID, b.ID)
		if a.State != StateReady || c.State != StateWaiting {
			t.Fatalf("posted: a %s, c %s; want ready, waiting", a.State, c.State)
		}
		if _, ok, _ := s.Claim(ctx, "write", "w", time.Minute); ok {
			t.Fatal("a waiting task was claimed")
		}
		for _, id := range []int64{a.ID, b.ID} {
			tk := mustClaim(t, s, "search", "h")
			if tk.ID != id {
				t.Fatalf("claimed %d, want the oldest ready %d", tk.ID, id)
			}
			if err := s.Complete(ctx, tk.ID, "h", Result{Summary: "found"}); err != nil {
				t.Fatal(err)
			}
			if id == a.ID {
				mustState(t, s, c.ID, StateWaiting)
			}
		}
		mustState(t, s, c.ID, StateReady)
		// A task posted on done inputs is ready at once.
		if d := mustPost(t, s, r.ID, "write", a.ID); d.State != StateReady {
			t.Fatalf("posted on a done input: %s", d.State)
		}
	})
}

func TestFailureTravelsToDependants(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		if _, err := s.Post(ctx, r.ID, Post{Role: "search", Description: "x", Inputs: []int64{a.ID}, MaxAttempts: 1}); err != nil {
			t.Fatal(err)
		}
		b := mustPost(t, s, r.ID, "write", a.ID)
		c := mustPost(t, s, r.ID, "review", b.ID)
		other := mustPost(t, s, r.ID, "search")
		for i := 1; i <= DefaultMaxAttempts; i++ {
			tk := mustClaim(t, s, "search", "h")
			if tk.ID != a.ID || tk.Attempts != i {
				t.Fatalf("claim %d: task %d attempt %d", i, tk.ID, tk.Attempts)
			}
			st, err := s.Fail(ctx, a.ID, "h", "boom")
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]State{true: StateFailed, false: StateReady}[i == DefaultMaxAttempts]; st != want {
				t.Fatalf("after attempt %d: %s, want %s", i, st, want)
			}
		}
		ta := mustState(t, s, a.ID, StateFailed)
		if !strings.Contains(ta.Error, "attempt 3 of 3: boom") {
			t.Fatalf("error %q", ta.Error)
		}
		tb := mustState(t, s, b.ID, StateFailed)
		tc := mustState(t, s, c.ID, StateFailed)
		if !strings.Contains(tb.Error, "input task") || !strings.Contains(tc.Error, "input task") {
			t.Fatalf("dependants' errors: %q, %q", tb.Error, tc.Error)
		}
		mustState(t, s, other.ID, StateReady)
		// Posting on a failed input fails the new task at once.
		if d := mustPost(t, s, r.ID, "write", c.ID); d.State != StateFailed {
			t.Fatalf("posted on a failed input: %s", d.State)
		}
	})
}

func TestPostRefusesForeignInputs(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r1, r2 := mustRun(t, s), mustRun(t, s)
		mine := mustPost(t, s, r1.ID, "search")
		theirs := mustPost(t, s, r2.ID, "search")
		cases := []struct {
			name   string
			post   Post
			expect []string
		}{
			{"another run's task", Post{Role: "w", Description: "d", Inputs: []int64{mine.ID, theirs.ID}}, []string{"inputs 2 ", "run 1"}},
			{"unknown ids", Post{Role: "w", Description: "d", Inputs: []int64{99, -1}}, []string{"-1, 99"}},
			{"itself, not posted yet", Post{Role: "w", Description: "d", Inputs: []int64{3}}, []string{"inputs 3 "}},
			{"empty role", Post{Description: "d"}, []string{"role is empty"}},
			{"empty description", Post{Role: "w", Description: "  "}, []string{"description is empty"}},
			{"attempts", Post{Role: "w", Description: "d", MaxAttempts: 99}, []string{"max_attempts 99", "1 to 20"}},
		}
		for _, c := range cases {
			_, err := s.Post(ctx, r1.ID, c.post)
			if err == nil {
				t.Fatalf("%s: posted", c.name)
			}
			for _, e := range c.expect {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("%s: %v does not say %q", c.name, err, e)
				}
			}
		}
		if ts, _ := s.Tasks(ctx, r1.ID); len(ts) != 1 {
			t.Fatalf("run 1 has %d tasks after refused posts", len(ts))
		}
		if _, err := s.Post(ctx, 42, Post{Role: "w", Description: "d"}); err == nil {
			t.Fatal("posted to an unknown run")
		}
	})
}

func TestCancelRun(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		b := mustPost(t, s, r.ID, "search")
		c := mustPost(t, s, r.ID, "write", a.ID)
		mustClaim(t, s, "search", "h")
		if err := s.Complete(ctx, a.ID, "h", Result{}); err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, "search", "h2")
		if err := s.CancelRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		mustState(t, s, a.ID, StateDone)
		mustState(t, s, b.ID, StateCancelled)
		mustState(t, s, c.ID, StateCancelled)
		wantErr(t, s.Renew(ctx, b.ID, "h2", time.Minute), ErrLeaseLost)
		wantErr(t, s.Complete(ctx, b.ID, "h2", Result{}), ErrLeaseLost)
		if _, err := s.Post(ctx, r.ID, Post{Role: "w", Description: "d"}); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("posted to a cancelled run: %v", err)
		}
		if run, _ := s.GetRun(ctx, r.ID); run.State != RunCancelled || run.FinishedAt.IsZero() {
			t.Fatalf("run %+v", run)
		}
	})
}

func TestExpiredLeaseIsClaimedAgain(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a, err := s.Post(ctx, r.ID, Post{Role: "search", Description: "d", MaxAttempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, "search", "crashed")
		clk.Advance(59 * time.Second)
		if _, ok, _ := s.Claim(ctx, "search", "other", time.Minute); ok {
			t.Fatal("claimed while the lease held")
		}
		clk.Advance(2 * time.Second)
		tk := mustClaim(t, s, "search", "other")
		if tk.ID != a.ID || tk.Attempts != 2 || !strings.Contains(tk.Error, "stopped renewing") {
			t.Fatalf("reclaimed %+v", tk)
		}
		wantErr(t, s.Complete(ctx, a.ID, "crashed", Result{}), ErrLeaseLost)
		// The second claim crashes too: attempts are used up.
		clk.Advance(2 * time.Minute)
		if _, ok, _ := s.Claim(ctx, "search", "third", time.Minute); ok {
			t.Fatal("claimed beyond max attempts")
		}
		mustState(t, s, a.ID, StateFailed)
	})
}

func TestRenewKeepsTheClaim(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		mustClaim(t, s, "search", "h")
		for range 5 {
			clk.Advance(40 * time.Second)
			if err := s.Renew(ctx, a.ID, "h", time.Minute); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.Claim(ctx, "search", "thief", time.Minute); ok {
				t.Fatal("a renewed claim was taken")
			}
		}
		wantErr(t, s.Renew(ctx, a.ID, "thief", time.Minute), ErrLeaseLost)
		if err := s.Complete(ctx, a.ID, "h", Result{}); err != nil {
			t.Fatal(err)
		}
		wantErr(t, s.Renew(ctx, a.ID, "h", time.Minute), ErrLeaseLost)
		// A done task is never claimed again, however much time passes.
		clk.Advance(time.Hour)
		if _, ok, _ := s.Claim(ctx, "search", "h", time.Minute); ok {
			t.Fatal("a done task was claimed")
		}
		if tk := mustState(t, s, a.ID, StateDone); tk.Attempts != 1 {
			t.Fatalf("attempts %d", tk.Attempts)
		}
	})
}

func TestFinishRunCancelsWhatIsLeft(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		b := mustPost(t, s, r.ID, "search")
		mustClaim(t, s, "search", "h")
		if err := s.Complete(ctx, a.ID, "h", Result{Summary: "kept"}); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(ctx, r.ID, "cancelled"); err == nil || !strings.Contains(err.Error(), `state "cancelled" is not accepted; use done or failed`) {
			t.Fatalf("finish as cancelled: %v", err)
		}
		if err := s.FinishRun(ctx, r.ID, RunDone); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Claim(ctx, "search", "h", time.Minute); ok {
			t.Fatal("a finished run's task was claimed")
		}
		mustState(t, s, b.ID, StateCancelled)
		if tk := mustState(t, s, a.ID, StateDone); tk.Summary != "kept" {
			t.Fatalf("done task %+v", tk)
		}
		wantErr(t, s.FinishRun(ctx, r.ID, RunFailed), ErrNotFound)
	})
}
