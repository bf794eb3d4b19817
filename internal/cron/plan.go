package cron

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// planFire decides what happens to a job whose next fire (j.NextRunAt)
// is at or before now: which fires run, which are recorded missed or
// skipped, and the next fire. running says a run of the job is still in
// progress. It is pure, so every catch-up rule is tested without a
// database or a clock.
//
// A fire counts as on time while it is at most the grace window late
// (Grace: half the period, 2 min … 2 h), which absorbs a slow wake-up
// or a short restart. Beyond that, or when several fires passed (hermes
// was down, the machine slept, the clock jumped), the catch-up policy
// applies; either way the job then continues on schedule from now.
func planFire(j Job, sched Schedule, now time.Time, running bool) Plan {
	n := j.NextRunAt
	p := Plan{Job: j.Name, Expect: n}
	grace := Grace(sched)
	if sched.OneShot() {
		p.Disable = true
		if now.Sub(n) <= grace {
			p.Start = []time.Time{n}
		} else {
			p.Records = append(p.Records, Record{n, StatusMissed,
				fmt.Sprintf("not running at %s; found %s late, more than the %s grace", stamp(n), late(now, n), grace)})
		}
		return p.skipIfRunning(j, running)
	}
	newest, _ := lastFireBy(sched, n, now)
	// The next fire follows the newest due one rather than now, so an
	// "every" schedule keeps its phase instead of drifting by each
	// wake-up's lateness.
	if next, ok := sched.Next(newest); ok {
		p.Next = next
	} else {
		p.Disable = true
	}
	older := countFires(sched, n, newest) // fires before newest, from n on
	switch {
	case older == 0 && now.Sub(newest) <= grace:
		p.Start = []time.Time{newest}
	case j.CatchUp == CatchUpAll:
		t := n
		for i := 0; i < MaxCatchUp && !t.After(newest); i++ {
			p.Start = append(p.Start, t)
			t, _ = sched.Next(t)
		}
		if !t.After(newest) {
			p.Records = append(p.Records, Record{t, StatusMissed,
				fmt.Sprintf("catch_up all runs at most %d fires; the fires from %s to %s were not run", MaxCatchUp, stamp(t), stamp(newest))})
		}
	case j.CatchUp == CatchUpOnce && now.Sub(newest) <= grace:
		p.Records = append(p.Records, Record{n, StatusMissed,
			fmt.Sprintf("%s from %s missed while not running; caught up once for %s", fires(older), stamp(n), stamp(newest))})
		p.Start = []time.Time{newest}
	default:
		why := fmt.Sprintf("%s from %s to %s missed while not running", fires(older+1), stamp(n), stamp(newest))
		if j.CatchUp == CatchUpOnce {
			why += fmt.Sprintf("; the last was %s ago, more than the %s grace, so it was not caught up", late(now, newest), grace)
		} else {
			why += "; catch_up skip"
		}
		p.Records = append(p.Records, Record{newest, StatusMissed, why})
	}
	return p.skipIfRunning(j, running)
}

// skipIfRunning turns the fires p would start into skipped records when
// the previous run of the job has not finished: a job never runs twice
// at once.
func (p Plan) skipIfRunning(j Job, running bool) Plan {
	if !running {
		return p
	}
	for _, at := range p.Start {
		why := "the previous run was still going"
		if !j.RunningSince.IsZero() {
			why = fmt.Sprintf("the previous run (started %s) was still going", stamp(j.RunningSince))
		}
		p.Records = append(p.Records, Record{at, StatusSkipped, why})
	}
	p.Start = nil
	return p
}

// countFires counts the fires of s in [from, until), stopping at 10000
// (reported as such) so a seconds schedule after a long outage costs
// nothing much.
func countFires(s Schedule, from, until time.Time) int {
	if e, ok := s.(every); ok {
		return int(until.Sub(from) / e.d)
	}
	n := 0
	for t := from; t.Before(until) && n < 10000; n++ {
		next, ok := s.Next(t)
		if !ok {
			break
		}
		t = next
	}
	return n
}

func fires(n int) string {
	if n == 1 {
		return "1 fire"
	}
	return fmt.Sprintf("%d fires", n)
}

func stamp(t time.Time) string { return t.Format(time.RFC3339) }

func late(now, t time.Time) time.Duration { return now.Sub(t).Round(time.Second) }

// sortNext orders by time, then name.
func sortNext(ns []Next) {
	slices.SortFunc(ns, func(a, b Next) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Job, b.Job)
	})
}
