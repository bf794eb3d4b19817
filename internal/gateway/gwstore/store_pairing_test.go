package gwstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// request asks for a code and fails the test on an error.
func request(t *testing.T, s *Store, platform, user string) (string, bool) {
	t.Helper()
	code, existing, err := s.RequestCode(t.Context(), platform, user)
	if err != nil {
		t.Fatalf("RequestCode(%s, %s): %v", platform, user, err)
	}
	return code, existing
}

// TestRequestCodeFormat: codes are CodeLength characters of CodeAlphabet,
// drawn afresh for each user.
func TestRequestCodeFormat(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		seen := map[string]bool{}
		for _, user := range []string{"1", "2", "3"} {
			code, existing := request(t, s, "telegram", user)
			if existing {
				t.Errorf("user %s: a first code is existing", user)
			}
			if norm, err := NormalizeCode(code); err != nil || norm != code {
				t.Errorf("code %q: %v", code, err)
			}
			if seen[code] {
				t.Errorf("code %q issued twice", code)
			}
			seen[code] = true
		}
	})
}

// TestRequestCodeOncePerWindow: asking again within RequestEvery returns
// the same code; after it, a new code replaces the old one, which no
// longer approves.
func TestRequestCodeOncePerWindow(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		first, _ := request(t, s, "telegram", "42")
		clk.Advance(RequestEvery - time.Second)
		if again, existing := request(t, s, "telegram", "42"); again != first || !existing {
			t.Errorf("within the window: %q existing=%v, want %q existing", again, existing, first)
		}
		clk.Advance(time.Second)
		next, existing := request(t, s, "telegram", "42")
		if next == first || existing {
			t.Errorf("after the window: %q existing=%v, want a new code", next, existing)
		}
		if _, err := s.Approve(t.Context(), "telegram", first); !errors.Is(err, ErrNoSuchCode) {
			t.Errorf("the replaced code approves: %v", err)
		}
		if p, err := s.Approve(t.Context(), "telegram", next); err != nil || p.User != "42" {
			t.Errorf("the new code: %+v, %v", p, err)
		}
	})
}

// TestRequestCodePendingLimit: a platform has at most MaxPending codes
// waiting; the next user is told why and until when, another platform is
// not affected, and an expired code frees its place.
func TestRequestCodePendingLimit(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		for _, u := range []string{"1", "2", "3"} {
			request(t, s, "telegram", u)
			clk.Advance(time.Minute)
		}
		_, _, err := s.RequestCode(t.Context(), "telegram", "4")
		var refused *RefusedError
		if !errors.As(err, &refused) || !errors.Is(err, ErrTooManyPending) {
			t.Fatalf("fourth user: %v, want ErrTooManyPending", err)
		}
		if want := t0.Add(CodeTTL); !refused.Until.Equal(want) {
			t.Errorf("Until = %s, want the first code's expiry %s", refused.Until, want)
		}
		if !strings.Contains(err.Error(), "3 pairing codes waiting") || !strings.Contains(err.Error(), "13:00 UTC") {
			t.Errorf("message %q does not say why and until when", err)
		}
		request(t, s, "email", "4")
		clk.Set(t0.Add(CodeTTL))
		request(t, s, "telegram", "4")
	})
}

// TestApproveAndList: approving a code pairs its user on its platform
// only; the code is gone from the pending list and the pairing is listed.
func TestApproveAndList(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		code, _ := request(t, s, "telegram", "42")
		other, _ := request(t, s, "telegram", "43")
		if l, err := s.ListPairings(ctx); err != nil || len(l.Pending) != 2 || len(l.Approved) != 0 {
			t.Fatalf("before: %+v, %v", l, err)
		}
		p, err := s.Approve(ctx, "telegram", strings.ToLower(code)+" ")
		if err != nil || p != (Pairing{Platform: "telegram", User: "42", Approved: t0}) {
			t.Fatalf("Approve = %+v, %v", p, err)
		}
		for platform, want := range map[string]bool{"telegram": true, "email": false} {
			if ok, err := s.Paired(ctx, platform, "42"); err != nil || ok != want {
				t.Errorf("Paired(%s, 42) = %v, %v; want %v", platform, ok, err, want)
			}
		}
		l, err := s.ListPairings(ctx)
		if err != nil || len(l.Pending) != 1 || l.Pending[0].Code != other || len(l.Approved) != 1 || l.Approved[0].User != "42" {
			t.Errorf("after: %+v, %v", l, err)
		}
	})
}

// TestApproveAttacks: a code approved twice, an expired code, a code of
// another platform and a malformed code all fail, naming the code and
// platform, and count towards the lock.
func TestApproveAttacks(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		code, _ := request(t, s, "telegram", "42")
		if _, err := s.Approve(ctx, "telegram", code); err != nil {
			t.Fatal(err)
		}
		expired, _ := request(t, s, "telegram", "43")
		elsewhere, _ := request(t, s, "email", "bob@example.com")
		clk.Advance(CodeTTL)
		fresh, _ := request(t, s, "email", "eve@example.com")
		for i, c := range []struct{ platform, code string }{
			{"telegram", code},      // approved twice
			{"telegram", expired},   // expired
			{"telegram", elsewhere}, // issued on another platform
			{"telegram", "ABC"},     // malformed
		} {
			_, err := s.Approve(ctx, c.platform, c.code)
			if err == nil {
				t.Errorf("Approve(%s, %s) succeeded", c.platform, c.code)
				continue
			}
			if !strings.Contains(err.Error(), c.code) || !strings.Contains(err.Error(), c.platform) {
				t.Errorf("error %q does not name the code and the platform", err)
			}
			if want := MaxFailures - i - 1; !strings.Contains(err.Error(), fmt.Sprintf("(%d more failed approvals lock pairing on telegram for 1h)", want)) {
				t.Errorf("error %q does not say %d more failures lock", err, want)
			}
		}
		// The fifth failure, which locks telegram's pairing and not email's.
		if _, err := s.Approve(ctx, "telegram", code); !errors.Is(err, ErrPairingLocked) || !strings.Contains(err.Error(), "has expired (codes last 1h)") {
			t.Errorf("error %v does not say how long codes last", err)
		}
		if ok, _ := s.Paired(ctx, "telegram", "43"); ok {
			t.Error("an expired code paired its user")
		}
		if _, err := s.Approve(ctx, "email", fresh); err != nil {
			t.Errorf("failures on telegram affect email: %v", err)
		}
	})
}

// TestApproveLock: MaxFailures failed approvals lock the platform for
// LockFor: the right code then fails too (a code guessed after the lock),
// no new code is issued, and after the lock all works again.
func TestApproveLock(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		code, _ := request(t, s, "telegram", "42")
		var err error
		for range MaxFailures {
			_, err = s.Approve(ctx, "telegram", "ZZZZZZZZ")
		}
		if !errors.Is(err, ErrPairingLocked) || !errors.Is(err, ErrNoSuchCode) {
			t.Fatalf("the fifth failure: %v, want ErrNoSuchCode and ErrPairingLocked", err)
		}
		if _, err := s.Approve(ctx, "telegram", code); !errors.Is(err, ErrPairingLocked) {
			t.Errorf("the right code during the lock: %v, want ErrPairingLocked", err)
		}
		if ok, _ := s.Paired(ctx, "telegram", "42"); ok {
			t.Error("a code approved during the lock paired its user")
		}
		if _, _, err := s.RequestCode(ctx, "telegram", "43"); !errors.Is(err, ErrPairingLocked) || !strings.Contains(err.Error(), "locked until 13:00 UTC") {
			t.Errorf("a request during the lock: %v", err)
		}
		if l, _ := s.ListPairings(ctx); len(l.Locked) != 1 || !l.Locked[0].Until.Equal(t0.Add(LockFor)) || len(l.Pending) != 0 {
			t.Errorf("list during the lock: %+v", l)
		}
		clk.Advance(LockFor)
		again, _ := request(t, s, "telegram", "42")
		if _, err := s.Approve(ctx, "telegram", again); err != nil {
			t.Errorf("after the lock: %v", err)
		}
	})
}

// TestApproveResetsFailures: a successful approval clears the count, so
// failures spread over time do not add up to a lock.
func TestApproveResetsFailures(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for _, u := range []string{"1", "2"} {
			for range MaxFailures - 1 {
				s.Approve(ctx, "telegram", "ZZZZZZZZ")
			}
			code, _ := request(t, s, "telegram", u)
			if _, err := s.Approve(ctx, "telegram", code); err != nil {
				t.Fatalf("user %s: %v", u, err)
			}
		}
	})
}

// TestRevoke: a revoked user is no longer paired; revoking one who is not
// is an error naming the user and the platform.
func TestRevoke(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		code, _ := request(t, s, "telegram", "42")
		s.Approve(ctx, "telegram", code)
		if err := s.Revoke(ctx, "email", "42"); !errors.Is(err, ErrNotPaired) || !strings.Contains(err.Error(), `"42"`) || !strings.Contains(err.Error(), "email") {
			t.Errorf("revoke on another platform: %v", err)
		}
		if err := s.Revoke(ctx, "telegram", "42"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.Paired(ctx, "telegram", "42"); ok {
			t.Error("still paired after revoke")
		}
		if err := s.Revoke(ctx, "telegram", "42"); !errors.Is(err, ErrNotPaired) {
			t.Errorf("revoking twice: %v", err)
		}
	})
}

// TestPairingRejectsEmpty: calls without a platform or user say which.
func TestPairingRejectsEmpty(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		if _, _, err := s.RequestCode(ctx, "", "1"); err == nil || !strings.Contains(err.Error(), "empty platform") {
			t.Errorf("RequestCode without platform: %v", err)
		}
		if _, _, err := s.RequestCode(ctx, "telegram", ""); err == nil || !strings.Contains(err.Error(), "empty user id") {
			t.Errorf("RequestCode without user: %v", err)
		}
		if _, err := s.Approve(ctx, "", "ABCDEFGH"); err == nil || !strings.Contains(err.Error(), "empty platform") {
			t.Errorf("Approve without platform: %v", err)
		}
		if err := s.Revoke(ctx, "telegram", ""); err == nil || !strings.Contains(err.Error(), "empty user id") {
			t.Errorf("Revoke without user: %v", err)
		}
		if ok, err := s.Paired(ctx, "telegram", ""); ok || err != nil {
			t.Errorf("Paired with an empty user = %v, %v", ok, err)
		}
	})
}

// TestNormalizeCode accepts codes typed in lower case and refuses
// anything outside the alphabet, naming it and what is accepted.
func TestNormalizeCode(t *testing.T) {
	if c, err := NormalizeCode(" abcd2345 "); err != nil || c != "ABCD2345" {
		t.Errorf("NormalizeCode = %q, %v", c, err)
	}
	for _, bad := range []string{"", "ABCD234", "ABCD23456", "ABCD2340", "ABCDO345", "ABCD-345", "ABCDÉ345"} {
		_, err := NormalizeCode(bad)
		if !errors.Is(err, ErrBadCode) || !strings.Contains(err.Error(), CodeAlphabet) {
			t.Errorf("NormalizeCode(%q) = %v", bad, err)
		}
	}
}

// TestPairedAddressCase: a paired address is paired in any ASCII case,
// but not in look-alikes that Unicode folds to it; other ids compare
// exactly.
func TestPairedAddressCase(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		for _, user := range []string{"Kate@Example.com", "Ab12"} {
			code, _ := request(t, s, "email", user)
			if _, err := s.Approve(ctx, "email", code); err != nil {
				t.Fatal(err)
			}
		}
		for user, want := range map[string]bool{
			"Kate@Example.com":      true,
			"kate@example.com":      true,
			"KATE@EXAMPLE.COM":      true,
			"\u212aate@example.com": false,
			"kate@example.co":       false,
			"Ab12":                  true,
			"ab12":                  false,
			"AB12":                  false,
		} {
			if ok, err := s.Paired(ctx, "email", user); err != nil || ok != want {
				t.Errorf("Paired(email, %q) = %v, %v; want %v", user, ok, err, want)
			}
		}
	})
}
