package engine

import (
	"sync"
	"time"
)

// activity tracks when turns start and how many are running, for the work
// that waits until nobody is talking to hermes (the skills curator). Turns
// nobody watches (scheduled jobs, delegated children) do not count: a job
// every half hour would otherwise keep that work from ever running.
type activity struct {
	mu      sync.Mutex
	running int
	// last is when the last turn started, or when the engine was made.
	last time.Time
}

// turnStarted records a turn of source starting; the function it returns
// records the turn's end.
func (e *Engine) turnStarted(source string) (ended func()) {
	if background(source) {
		return func() {}
	}
	e.act.mu.Lock()
	e.act.running++
	e.act.last = e.opt.Clock.Now()
	e.act.mu.Unlock()
	return func() {
		e.act.mu.Lock()
		e.act.running--
		e.act.mu.Unlock()
	}
}

// IdleSince returns when the last turn of this engine that someone is
// waiting on started (when the engine was made, before any), and whether
// one is running now.
func (e *Engine) IdleSince() (since time.Time, busy bool) {
	e.act.mu.Lock()
	defer e.act.mu.Unlock()
	return e.act.last, e.act.running > 0
}

// Background reports whether turns of source are work nobody watches:
// scheduled jobs and delegated children. They are not reviewed, and they
// do not count against idleness.
func Background(source string) bool { return background(source) }
