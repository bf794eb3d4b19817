package cron

import (
	"strings"
	"testing"
	"time"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParse(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 20, 0, 0, time.UTC)
	tests := []struct {
		expr, tz string
		next     time.Time // first fire after now; zero: want an error
		period   time.Duration
		err      string
	}{
		{expr: "0 9 * * *", next: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC), period: 24 * time.Hour},
		{expr: "30 0 9 * * *", next: time.Date(2026, 12, 3, 9, 0, 30, 0, time.UTC), period: 24 * time.Hour},
		{expr: "0 9 * * MON", tz: "Asia/Shanghai", next: time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC), period: 7 * 24 * time.Hour},
		{expr: "@daily", next: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), period: 24 * time.Hour},
		{expr: "@hourly", next: time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC), period: time.Hour},
		{expr: "@every 2h", next: now.Add(2 * time.Hour), period: 2 * time.Hour},
		{expr: "every 30m", next: now.Add(30 * time.Minute), period: 30 * time.Minute},
		{expr: "Every 90s", next: now.Add(90 * time.Second), period: 90 * time.Second},
		{expr: "2026-12-24T09:00", tz: "Asia/Shanghai", next: time.Date(2026, 12, 24, 1, 0, 0, 0, time.UTC)},
		{expr: "2026-12-24 09:00:30", next: time.Date(2026, 12, 24, 9, 0, 30, 0, time.UTC)},
		{expr: "2026-12-24T09:00:00+02:00", next: time.Date(2026, 12, 24, 7, 0, 0, 0, time.UTC)},
		{expr: "+30m", next: now.Add(30 * time.Minute)},
		{expr: "in 2h", next: now.Add(2 * time.Hour)},
		{expr: "0 9 * * MONDAY", err: `cron "0 9 * * MONDAY" is not a schedule`},
		{expr: "61 * * * *", err: "is not a schedule"},
		{expr: "* * *", err: "is not a schedule"},
		{expr: "", err: "empty"},
		{expr: "every 0s", err: "at least 1s"},
		{expr: "every soon", err: "at least 1s"},
		{expr: "+-5m", err: "positive duration"},
		{expr: "2026-13-45T09:00", err: "dates are written"},
		{expr: "0 0 30 2 *", err: "never fires"},
		{expr: "TZ=UTC 0 9 * * *", err: "timezone field"},
		{expr: "0 9 * * *", tz: "Mars/Olympus", err: `time zone "Mars/Olympus" is not known`},
	}
	for _, tc := range tests {
		t.Run(tc.expr+"|"+tc.tz, func(t *testing.T) {
			s, err := Parse(tc.expr, tc.tz, now)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				if !strings.Contains(tc.err, "time zone") && !strings.Contains(err.Error(), "@every 2h") {
					t.Errorf("error %q shows no valid example", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Next(now)
			if !ok || !got.Equal(tc.next) {
				t.Errorf("Next = %v %v, want %v", got, ok, tc.next)
			}
			if p := s.Period(); p != tc.period {
				t.Errorf("Period = %v, want %v", p, tc.period)
			}
			if s.OneShot() != (tc.period == 0) {
				t.Errorf("OneShot = %v", s.OneShot())
			}
		})
	}
}

func TestOneShotPast(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	s, err := Parse("2026-12-01T09:00", "", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Next(now); ok {
		t.Error("a past one-shot still has a next fire")
	}
	if g := Grace(s); g != 2*time.Minute {
		t.Errorf("one-shot grace = %v, want the 2m floor", g)
	}
}

// TestDST pins fires across daylight-saving changes in the job's own
// zone: a daily 09:00 stays 09:00 local (the UTC instant moves by an
// hour); a time inside the skipped spring-forward hour fires at the change
// (03:00 EDT) rather than not at all that day; a time in the hour the
// autumn change repeats fires once.
func TestDST(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	// 2027-03-14 02:00 EST becomes 03:00 EDT.
	before := time.Date(2027, 3, 13, 0, 0, 0, 0, ny)
	s, err := Parse("0 9 * * *", "America/New_York", before)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{
		time.Date(2027, 3, 13, 14, 0, 0, 0, time.UTC), // 09:00 EST = 14:00Z
		time.Date(2027, 3, 14, 13, 0, 0, 0, time.UTC), // 09:00 EDT = 13:00Z
		time.Date(2027, 3, 15, 13, 0, 0, 0, time.UTC),
	}
	at := before
	for i, w := range want {
		next, ok := s.Next(at)
		if !ok || !next.Equal(w) {
			t.Fatalf("fire %d = %v, want %v", i, next.UTC(), w)
		}
		if h := next.In(ny).Hour(); h != 9 {
			t.Errorf("fire %d at %02d:00 local, want 09:00", i, h)
		}
		at = next
	}

	s, err = Parse("30 2 * * *", "America/New_York", before)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := s.Next(before)
	second, _ := s.Next(first)
	if !first.Equal(time.Date(2027, 3, 13, 2, 30, 0, 0, ny)) {
		t.Errorf("first 02:30 = %v", first)
	}
	// 2027-03-14 02:30 does not exist in New York: it fires at 03:00 EDT,
	// the change, and the next day at 02:30 again.
	if want := time.Date(2027, 3, 14, 7, 0, 0, 0, time.UTC); !second.Equal(want) || second.In(ny).Format("15:04 MST") != "03:00 EDT" {
		t.Errorf("02:30 on the spring-forward day = %v, want 03:00 EDT (%v)", second.In(ny), want)
	}
	if third, _ := s.Next(second); !third.Equal(time.Date(2027, 3, 15, 2, 30, 0, 0, ny)) {
		t.Errorf("the day after = %v, want 2027-03-15 02:30 EDT", third.In(ny))
	}

	// 2027-11-07 02:00 EDT becomes 01:00 EST: 01:30 happens twice.
	autumn := time.Date(2027, 11, 6, 12, 0, 0, 0, ny)
	s, err = Parse("30 1 * * *", "America/New_York", autumn)
	if err != nil {
		t.Fatal(err)
	}
	at, fires := autumn, 0
	for {
		next, _ := s.Next(at)
		if next.After(time.Date(2027, 11, 8, 0, 0, 0, 0, ny)) {
			break
		}
		fires, at = fires+1, next
	}
	if fires != 1 {
		t.Errorf("01:30 on the autumn change day fired %d times, want 1", fires)
	}

	// An hourly job fires once per real hour: 23 on the spring day, 25 on
	// the autumn one.
	for _, day := range []struct {
		date time.Time
		want int
	}{{time.Date(2027, 3, 14, 0, 0, 0, 0, ny), 23}, {time.Date(2027, 11, 7, 0, 0, 0, 0, ny), 25}} {
		s, err := Parse("30 * * * *", "America/New_York", day.date)
		if err != nil {
			t.Fatal(err)
		}
		n, at := 0, day.date
		for {
			next, _ := s.Next(at)
			if !next.Before(day.date.AddDate(0, 0, 1)) {
				break
			}
			n, at = n+1, next
		}
		if n != day.want {
			t.Errorf("hourly on %s: %d fires, want %d", day.date.Format("2006-01-02"), n, day.want)
		}
	}
}

func TestShanghaiWeekly(t *testing.T) {
	sh := mustZone(t, "Asia/Shanghai")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	s, err := Parse("0 9 * * MON", "Asia/Shanghai", now)
	if err != nil {
		t.Fatal(err)
	}
	at := now
	for range 3 {
		next, _ := s.Next(at)
		l := next.In(sh)
		if l.Weekday() != time.Monday || l.Hour() != 9 || l.Minute() != 0 {
			t.Errorf("fire at %v, want Monday 09:00 Shanghai", l)
		}
		if next.UTC().Hour() != 1 {
			t.Errorf("fire at %v UTC, want 01:00Z", next.UTC())
		}
		at = next
	}
}

func TestLastFireBy(t *testing.T) {
	from := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	now := from.Add(3*time.Hour + 10*time.Minute)
	for _, expr := range []string{"0 * * * *", "@every 1h"} {
		s, err := Parse(expr, "", from.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := lastFireBy(s, from, now)
		if !ok || !got.Equal(from.Add(3*time.Hour)) {
			t.Errorf("%s: lastFireBy = %v %v, want 12:00", expr, got, ok)
		}
		if n := countFires(s, from, got); n != 3 {
			t.Errorf("%s: countFires = %d, want 3", expr, n)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"0 9 * * MON", "@every 2h", "every 30m", "+30m", "in 2h",
		"2026-12-24T09:00", "*/5 * * * * *", "@daily", "TZ=", "0 0 30 2 *", "@every -1s", "1-70/0 * * * *"} {
		f.Add(seed, "UTC")
	}
	f.Add("0 9 * * *", "Asia/Shanghai")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, expr, tz string) {
		s, err := Parse(expr, tz, now)
		if err != nil {
			return
		}
		next, ok := s.Next(now)
		if ok && !next.After(now) {
			t.Fatalf("%q: Next(%v) = %v is not after it", expr, now, next)
		}
		if p := s.Period(); p < 0 {
			t.Fatalf("%q: negative period %v", expr, p)
		}
		if g := Grace(s); g < 2*time.Minute || g > 2*time.Hour {
			t.Fatalf("%q: grace %v outside 2m..2h", expr, g)
		}
	})
}
