package cron

import "time"

// Clock is the scheduler's time source, injected so tests move time by
// hand and a wake-up is a timer, never a polling tick.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d (at once when d
	// is zero or negative).
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer the scheduler uses.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; false if it already fired.
	Stop() bool
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }
