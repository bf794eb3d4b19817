package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a Clock for tests. Its time stands still until the test moves
// it with Advance or Set, and only then do its timers, AfterFuncs and
// Sleeps fire, so a test never waits on the wall clock. BlockUntil lets a
// test wait, without polling, until the code under test is waiting on the
// fake. A Fake is safe for concurrent use.
type Fake struct {
	// moving serializes Advance and Set, so that the timers of one move
	// fire in deadline order.
	moving sync.Mutex

	mu      sync.Mutex
	now     time.Time
	seq     uint64        // orders timers with equal deadlines by creation
	pending []*fakeTimer  // timers, AfterFuncs and Sleeps not yet fired
	changed chan struct{} // closed and replaced whenever pending changes
}

// NewFake returns a Fake whose time is start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, changed: make(chan struct{})}
}

// fakeTimer is a timer, AfterFunc or Sleep of a Fake.
type fakeTimer struct {
	f   *Fake
	ch  chan time.Time // buffered 1; nil for an AfterFunc
	fn  func()         // nil for a channel timer
	at  time.Time
	seq uint64
}

// Now returns the fake's time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep waits until the fake's time has moved d on, or until ctx ends.
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	t := f.NewTimer(d)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// NewTimer returns a timer that fires when the fake's time reaches now+d;
// the value sent is that deadline.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.schedule(t, d)
	return t
}

// AfterFunc returns a timer that calls fn when the fake's time reaches
// now+d. During Advance and Set, callbacks run one at a time in deadline
// order, each in its own goroutine, and the move waits for each to return
// before going on, so their effects are visible when Advance returns. A
// callback must therefore not call Advance or Set, nor wait for the test
// that moves the clock.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{f: f, fn: fn}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.schedule(t, d)
	return t
}

// Advance moves the fake's time on by d, then fires, in deadline order,
// every timer, AfterFunc and Sleep whose deadline it has reached; it
// returns how many fired. Whatever they do sees the new time, and a timer
// they set is due d' after it, as if they had been woken late.
func (f *Fake) Advance(d time.Duration) int {
	f.moving.Lock()
	defer f.moving.Unlock()
	return f.moveTo(f.Now().Add(d))
}

// Set moves the fake's time to t and fires what Advance would. Setting a
// time before the current one fires nothing: deadlines are instants, so
// pending timers fire once the time reaches them again.
func (f *Fake) Set(t time.Time) int {
	f.moving.Lock()
	defer f.moving.Unlock()
	return f.moveTo(t)
}

// Waiters returns the number of timers, AfterFuncs and Sleeps waiting to
// fire.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

// BlockUntil waits until at least n timers, AfterFuncs and Sleeps are
// waiting to fire: the way a test knows the code under test has gone to
// sleep before it moves the time.
func (f *Fake) BlockUntil(n int) {
	for {
		f.mu.Lock()
		ok, changed := len(f.pending) >= n, f.changed
		f.mu.Unlock()
		if ok {
			return
		}
		<-changed
	}
}

// moveTo sets the time to to, then fires what is due by then, earliest
// first. Timers set meanwhile are relative to to, so they wait for a later
// move. Channel timers fire under the lock, so a Stop that returns false
// leaves no value behind; callbacks run outside it.
func (f *Fake) moveTo(to time.Time) int {
	f.mu.Lock()
	f.now = to
	f.mu.Unlock()
	fired := 0
	for {
		f.mu.Lock()
		t := f.earliest()
		if t == nil || t.at.After(to) {
			f.mu.Unlock()
			return fired
		}
		f.unschedule(t)
		if t.ch != nil {
			t.send(t.at)
		}
		f.mu.Unlock()
		fired++
		if t.fn != nil {
			done := make(chan struct{})
			go func() {
				defer close(done)
				t.fn()
			}()
			<-done
		}
	}
}

// earliest returns the pending timer with the first deadline, the first
// created among equals; nil when none is pending. f.mu is held.
func (f *Fake) earliest() *fakeTimer {
	var first *fakeTimer
	for _, t := range f.pending {
		if first == nil || t.at.Before(first.at) || t.at.Equal(first.at) && t.seq < first.seq {
			first = t
		}
	}
	return first
}

// schedule sets t to fire d after now, or fires it at once when d <= 0.
// f.mu is held.
func (f *Fake) schedule(t *fakeTimer, d time.Duration) {
	t.at = f.now.Add(d)
	if d <= 0 {
		if t.ch != nil {
			t.send(f.now)
		} else {
			go t.fn()
		}
		return
	}
	f.seq++
	t.seq = f.seq
	f.pending = append(f.pending, t)
	f.notify()
}

// unschedule removes t from the pending timers and reports whether it was
// there. f.mu is held.
func (f *Fake) unschedule(t *fakeTimer) bool {
	i := slices.Index(f.pending, t)
	if i < 0 {
		return false
	}
	f.pending = slices.Delete(f.pending, i, i+1)
	f.notify()
	return true
}

// notify wakes the BlockUntil callers. f.mu is held.
func (f *Fake) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// stop unschedules t and drains a fire not yet received; it reports
// whether either prevented a fire from being seen. f.mu is held.
func (f *Fake) stop(t *fakeTimer) bool {
	active := f.unschedule(t)
	if t.ch != nil {
		select {
		case <-t.ch:
			active = true
		default:
		}
	}
	return active
}

// send delivers a fire without blocking; the buffer holds one.
func (t *fakeTimer) send(at time.Time) {
	select {
	case t.ch <- at:
	default:
	}
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.stop(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	active := t.f.stop(t)
	t.f.schedule(t, d)
	return active
}
