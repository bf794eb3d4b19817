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
