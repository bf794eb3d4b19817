package gwstore

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// replicas are two stores over one database, as two replicas (or two
// processes) have them, each with a few connections open already, so
// that calls made together reach the database together.
func replicas(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) [2]*Store {
	r := [2]*Store{s, storeAt(t, x, clk)}
	together(8, func(i int) {
		if _, err := r[i%2].Cursor(t.Context(), "warm", "up"); err != nil {
			t.Error(err)
		}
	})
	return r
}

// together runs f(0) ... f(n-1) at once and waits for them all.
func together(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	wg.Wait()
}

// TestSeenExpiredTakenOverOnce: an event whose row expired, redelivered
// to two replicas many times at once while other events' calls prune
// expired rows, is first exactly once; and counts as seen afterwards.
func TestSeenExpiredTakenOverOnce(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		ctx := t.Context()
		for i := range 2 * pruneBatch {
			if _, err := s.Seen(ctx, "telegram", fmt.Sprint(i), time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		clk.Advance(time.Hour)
		var firsts atomic.Int32
		together(24, func(i int) {
			id := "7"
			if i%3 == 2 {
				id = fmt.Sprint("other-", i) // a call that prunes
			}
			first, err := r[i%2].Seen(ctx, "telegram", id, time.Hour)
			if err != nil {
				t.Error(err)
			}
			if first && id == "7" {
				firsts.Add(1)
			}
		})
		if firsts.Load() != 1 {
			t.Errorf("the expired event was first %d times, want 1", firsts.Load())
		}
		for _, st := range r {
			if first, err := st.Seen(ctx, "telegram", "7", time.Hour); err != nil || first {
				t.Errorf("after the race: first %v, %v; want seen", first, err)
			}
		}
	})
}

// TestApproveOnceAcrossReplicas: of many approvals of one code at once
// on two replicas, one pairs the user; the others fail as a code no
// longer pending.
func TestApproveOnceAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		code, _ := request(t, s, "telegram", "42")
		var paired, failed atomic.Int32
		together(MaxFailures-1, func(i int) {
			_, err := r[i%2].Approve(t.Context(), "telegram", code)
			switch {
			case err == nil:
				paired.Add(1)
			case errors.Is(err, ErrNoSuchCode):
				failed.Add(1)
			default:
				t.Error(err)
			}
		})
		if paired.Load() != 1 || failed.Load() != MaxFailures-2 {
			t.Errorf("%d approvals paired, %d failed; want 1 and %d", paired.Load(), failed.Load(), MaxFailures-2)
		}
	})
}

// TestApproveFailuresCountedAcrossReplicas: wrong codes tried at once on
// two replicas are counted one by one: MaxFailures of them fail as
// unknown codes, the last of those locking pairing, and every one after
// is refused by the lock without being tried; the right code is then
// refused too.
func TestApproveFailuresCountedAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		code, _ := request(t, s, "telegram", "42")
		const tries = 3 * MaxFailures
		var tried, refused, locking atomic.Int32
		together(tries, func(i int) {
			_, err := r[i%2].Approve(t.Context(), "telegram", "ZZZZZZZ"+CodeAlphabet[i:i+1])
			switch {
			case errors.Is(err, ErrBadCode), errors.Is(err, ErrNoSuchCode):
				tried.Add(1)
				if errors.Is(err, ErrPairingLocked) {
					locking.Add(1)
				}
			case errors.Is(err, ErrPairingLocked):
				refused.Add(1)
			default:
				t.Errorf("a wrong code: %v", err)
			}
		})
		if tried.Load() != MaxFailures || locking.Load() != 1 || refused.Load() != tries-MaxFailures {
			t.Errorf("%d wrong codes tried (%d locking), %d refused; want %d (1 locking) and %d",
				tried.Load(), locking.Load(), refused.Load(), MaxFailures, tries-MaxFailures)
		}
		if _, err := r[1].Approve(t.Context(), "telegram", code); !errors.Is(err, ErrPairingLocked) {
			t.Errorf("the right code during the lock: %v, want ErrPairingLocked", err)
		}
	})
}

// TestResolveResetOnceAcrossReplicas: messages of a chat whose session
// expired, resolved on two replicas at once, see the reset once; the
// others find no session to continue.
func TestResolveResetOnceAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		p := ResetPolicy{Mode: ResetIdle, Idle: time.Hour}
		if err := s.Bind(t.Context(), "k", "s1"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(2 * time.Hour)
		var resets atomic.Int32
		together(12, func(i int) {
			id, reset, err := r[i%2].Resolve(t.Context(), "k", clk.Now(), p)
			if err != nil || id != "" {
				t.Errorf("Resolve = %q, %v; want no session", id, err)
			}
			if reset {
				resets.Add(1)
			}
		})
		if resets.Load() != 1 {
			t.Errorf("the reset was reported %d times, want once", resets.Load())
		}
	})
}

// TestBindNewOnceAcrossReplicas: replicas that each started a session
// for a chat's first messages and bind it at once agree on one session,
// the one the chat is then bound to; a bound chat keeps its session.
func TestBindNewOnceAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		const n = 12
		var bound [n]string
		together(n, func(i int) {
			id, err := r[i%2].BindNew(t.Context(), "k", fmt.Sprint("s", i))
			if err != nil {
				t.Error(err)
			}
			bound[i] = id
		})
		id, _, err := r[1].Resolve(t.Context(), "k", clk.Now(), ResetPolicy{})
		if err != nil || id == "" {
			t.Fatalf("Resolve = %q, %v", id, err)
		}
		for i, b := range bound {
			if b != id {
				t.Errorf("binder %d was told %q, the chat is bound to %q", i, b, id)
			}
		}
		if got, err := s.BindNew(t.Context(), "k", "later"); err != nil || got != id {
			t.Errorf("BindNew of a bound chat = %q, %v; want %q", got, err, id)
		}
		if err := s.Forget(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.BindNew(t.Context(), "k", "after /new"); err != nil || got != "after /new" {
			t.Errorf("BindNew after Forget = %q, %v", got, err)
		}
	})
}

// TestRequestCodeOnceAcrossReplicas: a user asking for a code on two
// replicas at once (a message redelivered to both) is issued one code;
// every other answer is that code again, as existing.
func TestRequestCodeOnceAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		const n = 8
		var codes [n]string
		var issued atomic.Int32
		together(n, func(i int) {
			code, existing, err := r[i%2].RequestCode(t.Context(), "telegram", "42")
			if err != nil {
				t.Error(err)
			}
			if !existing {
				issued.Add(1)
			}
			codes[i] = code
		})
		if issued.Load() != 1 {
			t.Errorf("%d codes issued, want 1", issued.Load())
		}
		for i, c := range codes {
			if c != codes[0] {
				t.Errorf("request %d got %q, request 0 %q", i, c, codes[0])
			}
		}
	})
}

// TestRevokeRacingApprove: an owner revoking a user on one replica while
// the user's code is approved on another leaves the user unpaired, as
// either order would: approved then revoked, or revoked (the code with
// it) before the approval fails.
func TestRevokeRacingApprove(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		r := replicas(t, s, clk, x)
		ctx := t.Context()
		for i := range 20 {
			// A platform a round, so that the failed approvals do not
			// add up to a lock.
			platform, user := fmt.Sprint("telegram", i), "42"
			code, _ := request(t, s, platform, user)
			together(2, func(j int) {
				if j == 0 {
					r[0].Approve(ctx, platform, code)
				} else {
					r[1].Revoke(ctx, platform, user)
				}
			})
			if ok, err := s.Paired(ctx, platform, user); err != nil || ok {
				t.Errorf("round %d: paired %v, %v after a revoke racing the approval; want unpaired", i, ok, err)
			}
		}
	})
}
