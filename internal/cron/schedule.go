package cron

import (
	"errors"
	"fmt"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
)

// Schedule says when a job fires. Recurring schedules come from cron
// expressions, descriptors and "every" intervals; one-shots from a date
// or a delay relative to when the job was created.
type Schedule interface {
	// Next is the first fire strictly after after; false when there is
	// none (a one-shot already past).
	Next(after time.Time) (time.Time, bool)
	// Period is the nominal interval between fires, used to size the
	// grace window for missed runs; zero for one-shots.
	Period() time.Duration
	// OneShot reports whether the schedule fires at most once.
	OneShot() bool
}

// Example is the hint appended to every schedule error, so a bad
// expression is answered with something that works.
const Example = `e.g. "0 9 * * MON", "@every 2h", "every 30m", "2026-12-24T09:00" or "+30m"`

// parser is robfig's parser for 5 fields or 6 with leading seconds, plus
// descriptors such as @daily and @every.
var parser = robfig.NewParser(robfig.SecondOptional | robfig.Minute | robfig.Hour |
	robfig.Dom | robfig.Month | robfig.Dow | robfig.Descriptor)

// oneShotLayouts are the absolute dates accepted, read in the job's zone
// unless they carry an offset.
var oneShotLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// LoadZone resolves a time zone name; empty means def, and empty def
// means UTC (hermes never silently follows the server's zone).
func LoadZone(name, def string) (*time.Location, error) {
	if name == "" {
		name = def
	}
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q is not known (%w); use an IANA name such as \"Asia/Shanghai\" or \"UTC\"", name, err)
	}
	return loc, nil
}

// Parse reads expr in zone tz (empty: UTC). Relative one-shots ("+30m",
// "in 2h") count from now. Errors show the expression and a valid example;
// callers add the job's name.
func Parse(expr, tz string, now time.Time) (s Schedule, err error) {
	loc, err := LoadZone(tz, "")
	if err != nil {
		return nil, err
	}
	return parseIn(expr, loc, now)
}

// parseIn is Parse with the zone already resolved.
func parseIn(expr string, loc *time.Location, now time.Time) (s Schedule, err error) {
	e := strings.TrimSpace(expr)
	fail := func(why error) error {
		return fmt.Errorf("cron %q is not a schedule: %w; %s", expr, why, Example)
	}
	if e == "" {
		return nil, fail(errors.New("empty"))
	}
	if strings.HasPrefix(e, "TZ=") || strings.HasPrefix(e, "CRON_TZ=") {
		return nil, fail(errors.New("set the zone in the job's timezone field, not in the expression"))
	}
	lower := strings.ToLower(e)
	switch {
	case strings.HasPrefix(lower, "every "):
		return parseEvery(strings.TrimSpace(e[len("every "):]), fail)
	case strings.HasPrefix(lower, "@every "):
		return parseEvery(strings.TrimSpace(e[len("@every "):]), fail)
	case strings.HasPrefix(e, "+"), strings.HasPrefix(lower, "in "):
		d := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(lower, "+"), "in "))
		delay, perr := time.ParseDuration(d)
		if perr != nil || delay <= 0 {
			return nil, fail(fmt.Errorf("delay %q is not a positive duration like 30m or 2h", d))
		}
		return once{at: now.Add(delay).Truncate(time.Second)}, nil
	case len(e) >= 10 && e[4] == '-' && e[7] == '-':
		for _, layout := range oneShotLayouts {
			if t, perr := time.ParseInLocation(layout, e, loc); perr == nil {
				return once{at: t}, nil
			}
		}
		return nil, fail(errors.New("dates are written 2026-12-24T09:00 (in the job's zone) or RFC 3339"))
	}
	spec, perr := safeParse(e)
	if perr != nil {
		return nil, fail(perr)
	}
	switch sp := spec.(type) {
	case *robfig.SpecSchedule:
		sp.Location = loc
		c := cronSchedule{spec: sp}
		if _, ok := c.Next(now); !ok {
			return nil, fail(errors.New("it never fires"))
		}
		return c, nil
	case robfig.ConstantDelaySchedule:
		return every{d: sp.Delay}, nil
	}
	return nil, fail(fmt.Errorf("unsupported schedule type %T", spec))
}

// safeParse guards against a panic in the parser on odd input.
func safeParse(e string) (s robfig.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("unreadable: %v", r)
		}
	}()
	return parser.Parse(e)
}

// parseEvery reads the interval of "every 30m" and "@every 30m".
func parseEvery(d string, fail func(error) error) (Schedule, error) {
	delay, err := time.ParseDuration(d)
	if err != nil || delay < time.Second {
		return nil, fail(fmt.Errorf("interval %q is not a duration of at least 1s like 30m or 2h", d))
	}
	return every{d: delay.Truncate(time.Second)}, nil
}

// cronSchedule is a cron expression or descriptor such as @daily,
// evaluated in its zone's wall clock (robfig handles the zone and
// daylight saving, except for the hour a spring-forward change skips:
// see gapFire).
type cronSchedule struct{ spec *robfig.SpecSchedule }

func (c cronSchedule) Next(after time.Time) (time.Time, bool) {
	t := c.spec.Next(after)
	if t.IsZero() {
		return t, false
	}
	if g, ok := c.gapFire(after, t); ok {
		return g, true
	}
	for c.repeated(t) {
		if t = c.spec.Next(t); t.IsZero() {
			return t, false
		}
	}
	return t, true
}

// allHours is the hour field of a spec that fires in every hour.
const allHours = 1<<24 - 1

// repeated reports whether t is the second pass of a wall time that the
// autumn change repeats (01:30 EST after 01:30 EDT) and the first pass
// was a fire too: like Vixie cron, a job at a fixed time runs once that
// night. Jobs that fire every hour run in both passes.
func (c cronSchedule) repeated(t time.Time) bool {
	if c.spec.Hour&allHours == allHours {
		return false
	}
	loc := c.spec.Location
	start, _ := t.In(loc).ZoneBounds()
	if start.IsZero() {
		return false
	}
	_, before := start.Add(-time.Second).In(loc).Zone()
	_, now := t.In(loc).Zone()
	back := time.Duration(before-now) * time.Second
	if back <= 0 || t.Sub(start) >= back {
		return false
	}
	first := t.Add(-back)
	return c.spec.Next(first.Add(-time.Second)).Equal(first)
}

// gapFire finds a fire that robfig would skip: one whose wall time lies
// in the hour a spring-forward change removes (02:30 on the night New
// York goes from 02:00 to 03:00), which robfig drops for that day. Like
// Vixie cron, hermes runs it at the change instead, so a daily job never
// silently misses a day. It returns the first such change in (after, t).
// Jobs that fire every hour just lose the hour that does not exist.
func (c cronSchedule) gapFire(after, t time.Time) (time.Time, bool) {
	if c.spec.Hour&allHours == allHours {
		return time.Time{}, false
	}
	loc := c.spec.Location
	_, end := after.In(loc).ZoneBounds()
	for !end.IsZero() && end.Before(t) {
		_, before := end.Add(-time.Second).In(loc).Zone()
		_, now := end.In(loc).Zone()
		if gap := time.Duration(now-before) * time.Second; gap > 0 {
			// In the old offset the skipped wall hour is [end, end+gap).
			old := *c.spec
			old.Location = time.FixedZone("", before)
			if x := old.Next(end.Add(-time.Second)); !x.IsZero() && x.Before(end.Add(gap)) {
				return end, true
			}
		}
		_, end = end.In(loc).ZoneBounds()
	}
	return time.Time{}, false
}

func (c cronSchedule) Period() time.Duration {
	a, ok := c.Next(time.Now())
	if !ok {
		return 0
	}
	b, ok := c.Next(a)
	if !ok {
		return 0
	}
	return b.Sub(a)
}

func (cronSchedule) OneShot() bool { return false }

// every fires at a fixed interval, counted from the previous fire (so a
// late run does not drift the schedule) and from creation for the first.
type every struct{ d time.Duration }

func (e every) Next(after time.Time) (time.Time, bool) { return after.Add(e.d), true }
func (e every) Period() time.Duration                  { return e.d }
func (every) OneShot() bool                            { return false }

// once fires a single time at at.
type once struct{ at time.Time }

func (o once) Next(after time.Time) (time.Time, bool) { return o.at, o.at.After(after) }
func (once) Period() time.Duration                    { return 0 }
func (once) OneShot() bool                            { return true }

// At is the fire time of a one-shot schedule, for storing a relative
// one-shot ("+30m") as the absolute time it resolved to.
func At(s Schedule) (time.Time, bool) {
	o, ok := s.(once)
	return o.at, ok
}

// Grace is how late a fire may still run: half the period, clamped to
// 2 minutes … 2 hours (one-shots get the 2-minute floor).
func Grace(s Schedule) time.Duration {
	return min(max(s.Period()/2, 2*time.Minute), 2*time.Hour)
}

// lastFireBy is the newest fire of s in [from, now], found without
// stepping through every fire of a long outage: it looks back from now in
// doubling windows. ok is false when no fire lies in the range.
func lastFireBy(s Schedule, from, now time.Time) (time.Time, bool) {
	if from.After(now) {
		return time.Time{}, false
	}
	if e, isEvery := s.(every); isEvery {
		n := now.Sub(from) / e.d
		return from.Add(n * e.d), true
	}
	w := max(s.Period(), time.Second)
	for {
		start := now.Add(-w)
		if !start.After(from) {
			start = from.Add(-time.Nanosecond)
		}
		t, ok := s.Next(start)
		if ok && !t.After(now) {
			for {
				n, ok := s.Next(t)
				if !ok || n.After(now) {
					return t, true
				}
				t = n
			}
		}
		if !start.After(from) {
			return time.Time{}, false
		}
		w *= 2
	}
}
