package team

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// orphanIDs lists the ids Orphans returns.
func orphanIDs(t *testing.T, s *Store) []int64 {
	t.Helper()
	runs, err := s.Orphans(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return ids
}

// A leased run is an orphan once its lease runs out unrenewed, or at
// once when its holder releases it; a run started by hand, or one that
// ended, never is.
func TestOrphanedRuns(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		leased, err := s.StartRun(ctx, Start{Team: "research", Holder: "host/1", Lease: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if !leased.LeaseUntil.Equal(epoch.Add(30 * time.Second)) {
			t.Fatalf("lease until %v, want 30s from now", leased.LeaseUntil)
		}
		byHand, _ := s.StartRun(ctx, Start{Team: "research", Holder: "host/1"})
		ended, _ := s.StartRun(ctx, Start{Team: "research", Holder: "host/1", Lease: time.Second})
		if err := s.EndRun(ctx, ended.ID, Outcome{State: RunDone}); err != nil {
			t.Fatal(err)
		}
		if got := orphanIDs(t, s); len(got) != 0 {
			t.Fatalf("orphans while every lease holds: %v", got)
		}
		clk.Advance(20 * time.Second)
		if err := s.RenewRun(ctx, leased.ID, "host/1", 30*time.Second); err != nil {
			t.Fatal(err)
		}
		clk.Advance(20 * time.Second)
		if got := orphanIDs(t, s); len(got) != 0 {
			t.Fatalf("orphans after a renewal: %v", got)
		}
		clk.Advance(11 * time.Second)
		if got := orphanIDs(t, s); len(got) != 1 || got[0] != leased.ID {
			t.Fatalf("orphans once the lease ran out = %v, want [%d] (not the run by hand %d, nor the ended %d)", got, leased.ID, byHand.ID, ended.ID)
		}
		if err := s.RenewRun(ctx, byHand.ID, "host/1", time.Minute); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("renewing a run that is not leased: %v, want ErrLeaseLost", err)
		}

		released, _ := s.StartRun(ctx, Start{Team: "research", Holder: "host/2", Lease: time.Hour})
		if err := s.ReleaseRun(ctx, released.ID, "host/3"); err != nil {
			t.Fatal(err)
		}
		if got := orphanIDs(t, s); len(got) != 1 {
			t.Fatalf("another process's release freed the run: orphans %v", got)
		}
		if err := s.ReleaseRun(ctx, released.ID, "host/2"); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseRun(ctx, byHand.ID, "host/1"); err != nil {
			t.Fatal(err)
		}
		if got := orphanIDs(t, s); len(got) != 2 || got[1] != released.ID {
			t.Fatalf("orphans after the holder released its run = %v, want [%d %d]", got, leased.ID, released.ID)
		}
	})
}

// Taking a run over is a compare-and-set on what was read: a holder that
// renewed after the read keeps its run, the taker is told it lost, and
// the holder that lost its run to a taker is told so at its next
// renewal. A run by hand taken over stays unleased.
func TestHoldRunTakesOverOnce(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r, err := s.StartRun(ctx, Start{Team: "research", Holder: "host/1", Lease: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(11 * time.Second)
		seen, _ := s.GetRun(ctx, r.ID)
		// The holder was only slow: it renews after the taker read.
		if err := s.RenewRun(ctx, r.ID, "host/1", 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := s.HoldRun(ctx, seen, "host/2", 10*time.Second); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("taking a run its holder renewed after the read: %v, want ErrLeaseLost", err)
		}
		clk.Advance(11 * time.Second)
		seen, _ = s.GetRun(ctx, r.ID)
		if err := s.HoldRun(ctx, seen, "host/2", 10*time.Second); err != nil {
			t.Fatal(err)
		}
		got, _ := s.GetRun(ctx, r.ID)
		if got.Holder != "host/2" || !got.LeaseUntil.Equal(clk.Now().Add(10*time.Second)) {
			t.Fatalf("after the takeover: holder %q, lease until %v", got.Holder, got.LeaseUntil)
		}
		if err := s.RenewRun(ctx, r.ID, "host/1", 10*time.Second); !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("the old holder renewed a run taken from it: %v", err)
		}

		byHand, _ := s.StartRun(ctx, Start{Team: "research", Holder: "host/1"})
		if err := s.HoldRun(ctx, byHand, "host/2", time.Minute); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetRun(ctx, byHand.ID); !got.LeaseUntil.IsZero() || got.Holder != "host/2" {
			t.Fatalf("a run by hand taken over: holder %q, lease until %v; want it unleased", got.Holder, got.LeaseUntil)
		}
		if _, err := s.StartRun(ctx, Start{Team: "research", Lease: -time.Second}); err == nil {
			t.Error("a negative lease was accepted")
		}
	})
}

// KeepRun renews the lease until the run is no longer its holder's:
// cancelled here, and it says the lease is lost.
func TestKeepRunStopsWhenTheRunEnds(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r, err := s.StartRun(ctx, Start{Team: "research", Holder: "host/1", Lease: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			done <- s.KeepRun(ctx, r.ID, "host/1", 3*time.Second, func(err error) { t.Errorf("renewal: %v", err) })
		}()
		for range 3 {
			clk.BlockUntil(1)
			clk.Advance(time.Second)
		}
		clk.BlockUntil(1)
		if got, _ := s.GetRun(ctx, r.ID); !got.LeaseUntil.Equal(clk.Now().Add(3 * time.Second)) {
			t.Fatalf("lease until %v after three renewals at %v", got.LeaseUntil, clk.Now())
		}
		if err := s.CancelRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		if err := <-done; !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("KeepRun of a cancelled run returned %v, want ErrLeaseLost", err)
		}
	})
}
