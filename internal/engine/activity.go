package engine

import (
	"sync"
	"time"
)

// activity tracks when turns start and how many are running, for the work
// that waits until nobody is talking to hermes (the skills curator).
type activity struct {
	mu      sync.Mutex
	running int
	// last is when the last turn started, or when the engine was made.
	last time.Time
}

// turnStarted records a turn starting; the function it returns records
// the turn's end.
func (e *Engine) turnStarted() (ended func()) {
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

// IdleSince returns when the last turn of this engine started (when the
// engine was made, before any), and whether a turn is running now.
func (e *Engine) IdleSince() (since time.Time, busy bool) {
	e.act.mu.Lock()
	defer e.act.mu.Unlock()
	return e.act.last, e.act.running > 0
}
