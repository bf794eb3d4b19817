package gwstore

import (
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// resolve resolves key at the fake clock's time and fails on an error.
func resolve(t *testing.T, s *Store, now time.Time, p ResetPolicy) (string, bool) {
	t.Helper()
	id, reset, err := s.Resolve(t.Context(), "k", now, p)
	if err != nil {
		t.Fatal(err)
	}
	return id, reset
}

// TestResolveNone: without a policy a bound session lasts, however long
// the chat is quiet; an unbound key has no session and no reset.
func TestResolveNone(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		if id, reset := resolve(t, s, clk.Now(), ResetPolicy{}); id != "" || reset {
			t.Fatalf("unbound: %q, %v", id, reset)
		}
		if err := s.Bind(t.Context(), "k", "s1"); err != nil {
			t.Fatal(err)
		}
		if id, reset := resolve(t, s, clk.Now().Add(365*24*time.Hour), ResetPolicy{Mode: ResetNone}); id != "s1" || reset {
			t.Errorf("a year later: %q, %v", id, reset)
		}
		if ended, err := s.ForgetEnded(t.Context(), "k"); err != nil || ended != "s1" {
			t.Fatalf("ForgetEnded = %q, %v; want s1, the session it was bound to", ended, err)
		}
		if id, reset := resolve(t, s, clk.Now(), ResetPolicy{}); id != "" || reset {
			t.Errorf("after Forget: %q, %v", id, reset)
		}
		if ended, err := s.ForgetEnded(t.Context(), "k"); err != nil || ended != "" {
			t.Errorf("forgetting a key bound to nothing = %q, %v; want none", ended, err)
		}
	})
}

// TestResolveIdle: each message keeps the session alive; a gap of the
// idle time ends it, reported as a reset once.
func TestResolveIdle(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		p := ResetPolicy{Mode: ResetIdle, Idle: 30 * time.Minute}
		s.Bind(t.Context(), "k", "s1")
		for range 3 {
			clk.Advance(29 * time.Minute)
			if id, reset := resolve(t, s, clk.Now(), p); id != "s1" || reset {
				t.Fatalf("%s after the last message: %q, %v", 29*time.Minute, id, reset)
			}
		}
		clk.Advance(30 * time.Minute)
		if id, reset := resolve(t, s, clk.Now(), p); id != "" || !reset {
			t.Errorf("after the idle time: %q, %v; want a reset", id, reset)
		}
		if id, reset := resolve(t, s, clk.Now(), p); id != "" || reset {
			t.Errorf("again: %q, %v; want no session and no second reset", id, reset)
		}
		s.Bind(t.Context(), "k", "s2")
		if id, _ := resolve(t, s, clk.Now(), p); id != "s2" {
			t.Errorf("after Bind: %q", id)
		}
	})
}

// TestResolveDaily: the session ends at the hour on the zone's wall
// clock, also on the day daylight saving starts, when the hour is 23
// real hours after the day before's.
func TestResolveDaily(t *testing.T) {
	ny := newYork(t)
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		p := ResetPolicy{Mode: ResetDaily, AtHour: 4, Zone: ny}
		at := func(day, hour, min int) time.Time { return time.Date(2026, 3, day, hour, min, 0, 0, ny) }
		// 2026-03-08 02:00 EST becomes 03:00 EDT in New York.
		clk.Set(at(7, 4, 30))
		s.Bind(t.Context(), "k", "s1")
		for _, c := range []struct {
			now   time.Time
			id    string
			reset bool
		}{
			{at(7, 23, 0), "s1", false},
			{at(8, 3, 59), "s1", false},
			{at(8, 4, 0), "", true}, // 22h30m after the last message
		} {
			if id, reset := resolve(t, s, c.now, p); id != c.id || reset != c.reset {
				t.Errorf("at %s: %q, %v; want %q, %v", c.now, id, reset, c.id, c.reset)
			}
		}
		// Bound after the reset, the session lasts until the next day's.
		clk.Set(at(8, 4, 1))
		s.Bind(t.Context(), "k", "s2")
		if id, _ := resolve(t, s, at(9, 3, 59), p); id != "s2" {
			t.Errorf("before the next reset: %q", id)
		}
		if id, reset := resolve(t, s, at(9, 4, 0), p); id != "" || !reset {
			t.Errorf("at the next reset: %q, %v", id, reset)
		}
	})
}

// TestResetPolicyValidate names the field, the value and what is
// accepted.
func TestResetPolicyValidate(t *testing.T) {
	for _, c := range []struct {
		p    ResetPolicy
		want string
	}{
		{ResetPolicy{Mode: "weekly"}, `mode "weekly": accepted are none, idle and daily`},
		{ResetPolicy{Mode: ResetIdle}, "idle time 0s: with mode idle it must be at least one minute"},
		{ResetPolicy{Mode: ResetDaily, AtHour: 24}, "hour 24: with mode daily it is an hour from 0 to 23"},
		{ResetPolicy{Mode: ResetDaily, AtHour: -1}, "hour -1"},
	} {
		if err := c.p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want %q", c.p, err, c.want)
		}
		if _, _, err := (&Store{}).Resolve(t.Context(), "k", t0, c.p); err == nil {
			t.Errorf("Resolve with %+v succeeded", c.p)
		}
	}
	for _, p := range []ResetPolicy{{}, {Mode: ResetNone}, {Mode: ResetIdle, Idle: time.Minute}, {Mode: ResetDaily, AtHour: 0}, {Mode: ResetDaily, AtHour: 23}} {
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", p, err)
		}
	}
}

// TestResolveDailyDST: on the day daylight saving starts, a reset at
// the hour it skips still happens, at the hour after; and before today's
// hour the last reset is yesterday's on the wall clock, not 24 real
// hours back, which that day is an hour off.
func TestResolveDailyDST(t *testing.T) {
	ny := newYork(t)
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		for _, c := range []struct {
			name         string
			hour         int
			bound, asked time.Time
		}{
			{"skipped hour", 2, time.Date(2026, 3, 7, 12, 0, 0, 0, ny), time.Date(2026, 3, 8, 3, 30, 0, 0, ny)},
			{"yesterday's hour", 4, time.Date(2026, 3, 7, 3, 30, 0, 0, ny), time.Date(2026, 3, 8, 3, 30, 0, 0, ny)},
		} {
			clk.Set(c.bound)
			s.Bind(t.Context(), "k", "s1")
			if id, reset := resolve(t, s, c.asked, ResetPolicy{Mode: ResetDaily, AtHour: c.hour, Zone: ny}); id != "" || !reset {
				t.Errorf("%s: %q, %v; want a reset", c.name, id, reset)
			}
		}
	})
}

// newYork is America/New_York, where daylight saving starts on
// 2026-03-08 at 02:00; the test is skipped without a tz database.
func newYork(t *testing.T) *time.Location {
	t.Helper()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	return ny
}

// A chat active a moment ago is resolved without a write; its activity
// is written again once it is older than the policy needs, so an idle
// reset never comes more than a tenth of the idle time early.
func TestResolveWritesActivityOnlyWhenStale(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		key := "agent:main:telegram:dm:7"
		if err := s.Bind(ctx, key, "s1"); err != nil {
			t.Fatal(err)
		}
		lastActive := func() time.Time {
			var us int64
			if err := s.read.QueryRowContext(ctx, `SELECT last_active FROM gateway_sessions WHERE key = ?`, key).Scan(&us); err != nil {
				t.Fatal(err)
			}
			return fromMicros(us)
		}
		idle := ResetPolicy{Mode: ResetIdle, Idle: 5 * time.Minute} // touched every 30 s
		for _, step := range []struct {
			after     time.Duration
			wantTouch bool
		}{
			{10 * time.Second, false},
			{10 * time.Second, false},
			{15 * time.Second, true}, // 35 s since the last write
			{4 * time.Minute, true},
		} {
			before := lastActive()
			clk.Advance(step.after)
			id, reset, err := s.Resolve(ctx, key, clk.Now(), idle)
			if err != nil || id != "s1" || reset {
				t.Fatalf("Resolve = %q, %v, %v", id, reset, err)
			}
			if touched := !lastActive().Equal(before); touched != step.wantTouch {
				t.Errorf("after %s: last_active written %v, want %v", step.after, touched, step.wantTouch)
			}
		}
		// Quiet for the idle time since the last message (at most 30 s
		// unrecorded): the chat starts afresh.
		clk.Advance(5*time.Minute + 30*time.Second)
		if id, ended, err := s.ResolveEnded(ctx, key, clk.Now(), idle); err != nil || id != "" || ended != "s1" {
			t.Errorf("after the idle time: session %q, ended %q, %v; want none, and s1 ended", id, ended, err)
		}
	})
}
