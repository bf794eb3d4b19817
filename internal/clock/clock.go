// Package clock is hermes's seam for time: every package that reads the
// time, sleeps or sets a timer takes a Clock, so that its tests move time
// by hand instead of waiting on the wall clock.
//
// Real is the wall clock; Fake is the clock for tests. A nil Clock in any
// hermes options struct means Real, so zero-value options stay usable
// (OrReal).
package clock

import (
	"context"
	"time"
)

// Clock is a source of time and of waits on it.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d or until ctx ends, whichever comes first, and returns
	// ctx.Err() if ctx ended. A d of zero or less returns ctx.Err() at once.
	Sleep(ctx context.Context, d time.Duration) error
	// NewTimer returns a timer that fires once after d (at once when d is
	// zero or negative), sending the time on its channel.
	NewTimer(d time.Duration) Timer
	// AfterFunc returns a timer that calls f in its own goroutine after d;
	// its channel is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer that hermes uses, with Go 1.23
// semantics: after Stop or Reset returns, no value sent for the old
// deadline is received from C.
type Timer interface {
	// C is the channel the fire is sent on; nil for AfterFunc timers.
	C() <-chan time.Time
	// Stop prevents the timer from firing; false if it had already fired
	// (and its value was received) or been stopped.
	Stop() bool
	// Reset makes the timer fire after d from now instead, and reports
	// what Stop would have.
	Reset(d time.Duration) bool
}

// OrReal returns c, or Real when c is nil; options structs call it so that
// their zero value means the wall clock.
func OrReal(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
