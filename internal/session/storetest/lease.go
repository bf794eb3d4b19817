package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// leaser returns s as a session.Leaser, or skips the test for a store
// that does not share sessions between processes.
func leaser(t *testing.T, s session.Store) session.Leaser {
	t.Helper()
	l, ok := s.(session.Leaser)
	if !ok {
		t.Skip("the store does not implement session.Leaser")
	}
	return l
}

// acquire asks for a lease and fails the test if the store cannot answer.
func acquire(t *testing.T, l session.Leaser, req session.LeaseRequest) session.Lease {
	t.Helper()
	got, err := l.AcquireLease(ctx(t), req)
	if err != nil {
		t.Fatalf("AcquireLease(%+v): %v", req, err)
	}
	return got
}

// testLease: one holder at a time per session; the holder renews it;
// another takes it once it expired, at once when it replaces a holder
// known to be gone, and after a release; a release by someone else
// changes nothing; sessions are leased apart.
func testLease(t *testing.T, s session.Store) {
	l := leaser(t, s)
	const ttl = 30 * time.Second
	a := create(t, s, session.Session{Source: "cli"})
	b := create(t, s, session.Session{Source: "cli"})
	req := func(id, holder string, at time.Duration) session.LeaseRequest {
		return session.LeaseRequest{SessionID: id, Holder: holder, Now: base.Add(at), TTL: ttl}
	}

	if _, err := l.AcquireLease(ctx(t), req("no-such-session", "p1", 0)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("lease of an unknown session: %v, want ErrNotFound", err)
	}
	if got := acquire(t, l, req(a.ID, "p1", 0)); !got.Held || got.Holder != "p1" {
		t.Fatalf("a free lease: %+v, want held by p1", got)
	}
	got := acquire(t, l, req(a.ID, "p2", time.Second))
	if got.Held || got.Holder != "p1" {
		t.Fatalf("a held lease was given to p2: %+v", got)
	}
	sameTime(t, "Until", got.Until, base.Add(ttl))
	if got := acquire(t, l, req(b.ID, "p2", time.Second)); !got.Held {
		t.Errorf("the lease of another session: %+v, want held by p2", got)
	}
	got = acquire(t, l, req(a.ID, "p1", 20*time.Second))
	if !got.Held {
		t.Fatalf("p1 could not renew its lease: %+v", got)
	}
	sameTime(t, "renewed Until", got.Until, base.Add(20*time.Second+ttl))
	if got := acquire(t, l, req(a.ID, "p2", 40*time.Second)); got.Held {
		t.Errorf("p2 took a renewed lease before it expired: %+v", got)
	}
	if got := acquire(t, l, req(a.ID, "p2", 50*time.Second)); !got.Held {
		t.Fatalf("p2 could not take a lease that expired: %+v", got)
	}
	if got := acquire(t, l, req(a.ID, "p1", 51*time.Second)); got.Held || got.Holder != "p2" {
		t.Errorf("p1 got back a lease p2 had taken over: %+v", got)
	}
	if err := l.ReleaseLease(ctx(t), a.ID, "p1"); err != nil {
		t.Fatal(err)
	}
	if got := acquire(t, l, req(a.ID, "p1", 52*time.Second)); got.Held {
		t.Errorf("a release by someone not holding the lease freed it: %+v", got)
	}
	if err := l.ReleaseLease(ctx(t), a.ID, "p2"); err != nil {
		t.Fatal(err)
	}
	if got := acquire(t, l, req(a.ID, "p3", 53*time.Second)); !got.Held {
		t.Fatalf("a released lease was not free: %+v", got)
	}
	gone := req(a.ID, "p4", 54*time.Second)
	gone.Replace = "p3"
	if got := acquire(t, l, gone); !got.Held || got.Holder != "p4" {
		t.Errorf("p4 could not replace p3, known to be gone: %+v", got)
	}
	other := req(a.ID, "p5", 55*time.Second)
	other.Replace = "p3"
	if got := acquire(t, l, other); got.Held {
		t.Errorf("replacing a holder that no longer held the lease took it from p4: %+v", got)
	}
}

// testLeaseRace: of many asking at once for a free lease, one gets it.
func testLeaseRace(t *testing.T, s session.Store) {
	l := leaser(t, s)
	sess := create(t, s, session.Session{Source: "cli"})
	const askers = 8
	var wg sync.WaitGroup
	held := make(chan string, askers)
	for i := range askers {
		wg.Go(func() {
			holder := fmt.Sprintf("p%d", i)
			got, err := l.AcquireLease(ctx(t), session.LeaseRequest{SessionID: sess.ID, Holder: holder, Now: base, TTL: time.Minute})
			if err != nil {
				t.Errorf("%s: %v", holder, err)
				return
			}
			if got.Held {
				held <- holder
			}
		})
	}
	wg.Wait()
	close(held)
	var winners []string
	for h := range held {
		winners = append(winners, h)
	}
	if len(winners) != 1 {
		t.Errorf("%d askers got the lease (%v), want 1", len(winners), winners)
	}
}
