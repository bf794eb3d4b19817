package facts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// An extraction is granted once for the same messages, again once the
// session has more, never beyond the day's cap (a refused claim marks
// nothing), again the next day, and again for the same messages once a
// failed one was released.
func TestClaimExtraction(t *testing.T) { eachBackend(t, testClaimExtraction) }

func testClaimExtraction(t *testing.T, backend string) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC))
	s := openOn(t, backend, Options{Clock: clk})
	claim := func(session string, n int) (Claim, error) { return s.ClaimExtraction(ctx, session, n, 3) }
	if c, err := claim("s1", 4); err != nil || c.Previous != 0 || c.Messages != 4 {
		t.Fatalf("first claim: %+v, %v", c, err)
	}
	if _, err := claim("s1", 4); !errors.Is(err, ErrExtracted) {
		t.Fatalf("the same messages again: %v, want ErrExtracted", err)
	}
	if _, err := claim("s1", 3); !errors.Is(err, ErrExtracted) {
		t.Fatalf("fewer messages: %v, want ErrExtracted", err)
	}
	c, err := claim("s1", 6)
	if err != nil || c.Previous != 4 {
		t.Fatalf("more messages: %+v, %v", c, err)
	}
	if err := s.ReleaseExtraction(ctx, c); err != nil {
		t.Fatal(err)
	}
	// Released, but the day's count kept the call made: this is the
	// third and last of the day.
	if _, err := claim("s1", 6); err != nil {
		t.Fatalf("the released messages again: %v", err)
	}
	if _, err := claim("s2", 2); !errors.Is(err, ErrBudget) {
		t.Fatalf("a fourth extraction in a day capped at 3: %v, want ErrBudget", err)
	}
	clk.Advance(2 * time.Hour) // past midnight UTC
	if _, err := claim("s2", 2); err != nil {
		t.Fatalf("the next day: %v (a refused claim must have marked nothing)", err)
	}
	if _, err := s.ClaimExtraction(ctx, "s3", 2, 0); err != nil {
		t.Fatalf("no cap: %v", err)
	}
	if _, err := s.ClaimExtraction(ctx, "", 2, 0); err == nil {
		t.Error("a claim without a session was granted")
	}
}

// Processes claiming one session's extraction at once (replicas on
// PostgreSQL, processes on one state.db) get it once; the others are
// told it was extracted.
func TestClaimExtractionRace(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		const n = 6
		stores := make([]*Store, n)
		for i := range stores {
			stores[i] = openTarget(t, x, Options{})
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, s := range stores {
			wg.Go(func() { _, errs[i] = s.ClaimExtraction(context.Background(), "shared", 10, 0) })
		}
		wg.Wait()
		granted := 0
		for i, err := range errs {
			switch {
			case err == nil:
				granted++
			case !errors.Is(err, ErrExtracted):
				t.Errorf("process %d: %v", i, err)
			}
		}
		if granted != 1 {
			t.Fatalf("%d of %d processes were granted the same extraction", granted, n)
		}
		// And the day's count holds every grant of distinct sessions.
		var wg2 sync.WaitGroup
		for i, s := range stores {
			wg2.Go(func() { _, errs[i] = s.ClaimExtraction(context.Background(), fmt.Sprint("s", i), 1, 4) })
		}
		wg2.Wait()
		granted = 0
		for i, err := range errs {
			switch {
			case err == nil:
				granted++
			case !errors.Is(err, ErrBudget):
				t.Errorf("process %d: %v", i, err)
			}
		}
		if granted != 3 { // 4 a day, one spent on "shared"
			t.Fatalf("%d extractions granted under a cap of 4 with one spent; want 3", granted)
		}
	})
}

// A due extraction is pending until a claim takes the session, or Settle
// says there was nothing to take; a later Due moves it; a released claim
// is due again; a refused claim (the day's cap) leaves it due; and Expire
// keeps the record of a session still due.
func TestDueExtractions(t *testing.T) { eachBackend(t, testDueExtractions) }

func testDueExtractions(t *testing.T, backend string) {
	ctx := context.Background()
	start := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	s := openOn(t, backend, Options{Clock: clk})
	pending := func() string {
		t.Helper()
		ps, err := s.Pending(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, p := range ps {
			out += fmt.Sprintf("%s@%s ", p.Session, p.Due.Sub(start))
		}
		return out
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Due(ctx, "a", start.Add(30*time.Minute)))
	must(s.Due(ctx, "b", start.Add(10*time.Minute)))
	must(s.Due(ctx, "a", start.Add(50*time.Minute)))
	if got := pending(); got != "b@10m0s a@50m0s " {
		t.Fatalf("pending = %q, want b then a, moved", got)
	}
	c, err := s.ClaimExtraction(ctx, "a", 4, 1)
	must(err)
	if got := pending(); got != "b@10m0s " {
		t.Fatalf("after a's claim: %q", got)
	}
	must(s.ReleaseExtraction(ctx, c))
	if got := pending(); got != "a@0s b@10m0s " {
		t.Fatalf("after a's claim was released: %q, want a due at once", got)
	}
	if _, err := s.ClaimExtraction(ctx, "b", 2, 1); !errors.Is(err, ErrBudget) {
		t.Fatalf("b over the day's cap: %v", err)
	}
	must(s.Settle(ctx, "a"))
	if got := pending(); got != "b@10m0s " {
		t.Fatalf("after a was settled and b refused: %q, want b still due", got)
	}
	clk.Advance(48 * time.Hour)
	if _, err := s.Expire(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if got := pending(); got != "b@10m0s " {
		t.Errorf("after Expire: %q, want b still due", got)
	}
}
