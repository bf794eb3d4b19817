package clock

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC)

// fired reports whether t has a value waiting, without blocking.
func fired(t Timer) (time.Time, bool) {
	select {
	case at := <-t.C():
		return at, true
	default:
		return time.Time{}, false
	}
}

func TestFakeNowAdvanceSet(t *testing.T) {
	f := NewFake(start)
	if got := f.Now(); !got.Equal(start) {
		t.Fatalf("Now = %v, want %v", got, start)
	}
	f.Advance(90 * time.Second)
	if got := f.Now(); !got.Equal(start.Add(90 * time.Second)) {
		t.Errorf("after Advance: Now = %v", got)
	}
	later := start.Add(24 * time.Hour)
	f.Set(later)
	if got := f.Now(); !got.Equal(later) {
		t.Errorf("after Set: Now = %v, want %v", got, later)
	}
}

func TestFakeTimerFiresAtDeadline(t *testing.T) {
	f := NewFake(start)
	tm := f.NewTimer(time.Minute)
	if n := f.Advance(59 * time.Second); n != 0 {
		t.Fatalf("Advance before the deadline fired %d", n)
	}
	if _, ok := fired(tm); ok {
		t.Fatal("timer fired before its deadline")
	}
	if n := f.Advance(time.Second); n != 1 {
		t.Fatalf("Advance to the deadline fired %d, want 1", n)
	}
	at, ok := fired(tm)
	if !ok || !at.Equal(start.Add(time.Minute)) {
		t.Fatalf("fire = %v, %v; want the deadline %v", at, ok, start.Add(time.Minute))
	}
	if f.Advance(time.Hour) != 0 {
		t.Error("a timer fired twice")
	}
	if tm.Stop() {
		t.Error("Stop after the fire was received = true, want false")
	}
}

func TestFakeTimerZeroFiresAtOnce(t *testing.T) {
	f := NewFake(start)
	for _, d := range []time.Duration{0, -time.Second} {
		at, ok := fired(f.NewTimer(d))
		if !ok || !at.Equal(start) {
			t.Errorf("NewTimer(%v): fire = %v, %v; want at once", d, at, ok)
		}
	}
	if n := f.Waiters(); n != 0 {
		t.Errorf("Waiters = %d after timers that fired at once", n)
	}
}

func TestFakeTimerStop(t *testing.T) {
	f := NewFake(start)
	tm := f.NewTimer(time.Minute)
	if !tm.Stop() {
		t.Error("Stop of a pending timer = false")
	}
	if tm.Stop() {
		t.Error("second Stop = true")
	}
	if n := f.Advance(time.Hour); n != 0 {
		t.Errorf("a stopped timer fired (%d)", n)
	}
	if _, ok := fired(tm); ok {
		t.Error("a stopped timer sent a value")
	}

	// A fire not yet received is drained: nothing stale is read after Stop.
	tm = f.NewTimer(time.Minute)
	f.Advance(time.Minute)
	if !tm.Stop() {
		t.Error("Stop of a fired but unreceived timer = false, want true (Go 1.23 semantics)")
	}
	if _, ok := fired(tm); ok {
		t.Error("a value was received after Stop")
	}
}

func TestFakeTimerReset(t *testing.T) {
	f := NewFake(start)
	tm := f.NewTimer(time.Minute)
	if !tm.Reset(time.Hour) {
		t.Error("Reset of a pending timer = false")
	}
	f.Advance(time.Minute)
	if _, ok := fired(tm); ok {
		t.Fatal("the timer fired at its old deadline")
	}
	f.Advance(time.Hour - time.Minute)
	at, ok := fired(tm)
	if !ok || !at.Equal(start.Add(time.Hour)) {
		t.Fatalf("fire = %v, %v; want the new deadline", at, ok)
	}
	if tm.Reset(time.Second) {
		t.Error("Reset of a fired, received timer = true")
	}
	f.Advance(time.Second)
	if _, ok := fired(tm); !ok {
		t.Error("a timer reset after its fire did not fire again")
	}

	// Reset drains a fire not yet received.
	f.Advance(time.Hour)
	tm.Reset(time.Minute) // stopped: nothing pending
	f.Advance(time.Minute)
	tm.Reset(time.Minute) // fired, unreceived: drained and rescheduled
	if _, ok := fired(tm); ok {
		t.Error("a stale value was received after Reset")
	}
	if n := f.Waiters(); n != 1 {
		t.Errorf("Waiters = %d after Reset, want 1", n)
	}
}

func TestFakeAfterFuncOrder(t *testing.T) {
	f := NewFake(start)
	var mu sync.Mutex
	var got []string
	add := func(name string, d time.Duration) Timer {
		return f.AfterFunc(d, func() {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, name)
		})
	}
	add("c", 3*time.Second)
	add("a", time.Second)
	stopped := add("x", 2*time.Second)
	add("b1", 2*time.Second)
	add("b2", 2*time.Second) // same deadline: after b1, which was set first
	var seen time.Time
	f.AfterFunc(500*time.Millisecond, func() {
		seen = f.Now()
		add("chained", time.Second) // due a second after the new time
	})
	if stopped.C() != nil {
		t.Error("an AfterFunc timer has a channel")
	}
	if !stopped.Stop() {
		t.Error("Stop of a pending AfterFunc = false")
	}
	if n := f.Advance(10 * time.Second); n != 5 {
		t.Errorf("Advance fired %d, want 5", n)
	}
	if !seen.Equal(start.Add(10 * time.Second)) {
		t.Errorf("a callback saw Now = %v, want the new time", seen)
	}
	// Advance returns after the callbacks, so their effects are visible.
	mu.Lock()
	if want := []string{"a", "b1", "b2", "c"}; !slices.Equal(got, want) {
		t.Errorf("callbacks ran %v, want %v", got, want)
	}
	mu.Unlock()
	if n := f.Advance(time.Second); n != 1 {
		t.Errorf("second Advance fired %d, want the chained callback", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"a", "b1", "b2", "c", "chained"}; !slices.Equal(got, want) {
		t.Errorf("callbacks ran %v, want %v", got, want)
	}
}

func TestFakeAfterFuncZeroRunsAtOnce(t *testing.T) {
	f := NewFake(start)
	done := make(chan struct{})
	f.AfterFunc(0, func() { close(done) })
	<-done
}

func TestFakeAdvanceAcrossDeadlines(t *testing.T) {
	f := NewFake(start)
	ctx := context.Background()
	timers := map[time.Duration]Timer{}
	for _, d := range []time.Duration{5 * time.Minute, time.Minute, 3 * time.Minute} {
		timers[d] = f.NewTimer(d)
	}
	slept := make(chan time.Time, 1)
	go func() {
		if err := f.Sleep(ctx, 2*time.Minute); err != nil {
			t.Errorf("Sleep = %v", err)
		}
		slept <- f.Now()
	}()
	f.BlockUntil(4)
	if n := f.Advance(4 * time.Minute); n != 3 {
		t.Fatalf("Advance(4m) fired %d, want the 1m, 2m and 3m deadlines", n)
	}
	if woke := <-slept; woke.Before(start.Add(2 * time.Minute)) {
		t.Errorf("Sleep woke at %v, before its deadline", woke)
	}
	for d, tm := range timers {
		at, ok := fired(tm)
		switch {
		case d < 4*time.Minute && (!ok || !at.Equal(start.Add(d))):
			t.Errorf("%v timer: fire = %v, %v; want its deadline", d, at, ok)
		case d > 4*time.Minute && ok:
			t.Errorf("%v timer fired at %v", d, at)
		}
	}
	if n := f.Waiters(); n != 1 {
		t.Errorf("Waiters = %d, want the 5m timer", n)
	}
}

func TestFakeSetBackwardsFiresNothing(t *testing.T) {
	f := NewFake(start)
	tm := f.NewTimer(time.Minute)
	if n := f.Set(start.Add(-time.Hour)); n != 0 {
		t.Errorf("Set into the past fired %d", n)
	}
	if n := f.Set(start.Add(time.Minute)); n != 1 {
		t.Errorf("Set to the deadline fired %d, want 1", n)
	}
	if _, ok := fired(tm); !ok {
		t.Error("timer did not fire at its deadline after time went back and forth")
	}
}

func TestFakeSleep(t *testing.T) {
	f := NewFake(start)
	done := make(chan error, 1)
	go func() { done <- f.Sleep(context.Background(), time.Hour) }()
	f.BlockUntil(1)
	f.Advance(time.Hour - time.Nanosecond)
	select {
	case err := <-done:
		t.Fatalf("Sleep returned %v before its deadline", err)
	default:
	}
	f.Advance(time.Nanosecond)
	if err := <-done; err != nil {
		t.Errorf("Sleep = %v", err)
	}
	if err := f.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestFakeSleepCancelled(t *testing.T) {
	f := NewFake(start)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Sleep(ctx, time.Hour) }()
	f.BlockUntil(1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}
	if n := f.Waiters(); n != 0 {
		t.Errorf("a cancelled Sleep left %d waiter(s)", n)
	}
	// Already cancelled: no wait at all, whatever d is.
	for _, d := range []time.Duration{0, time.Hour} {
		if err := f.Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(cancelled, %v) = %v", d, err)
		}
	}
	if n := f.Waiters(); n != 0 {
		t.Errorf("Waiters = %d", n)
	}
}

func TestFakeBlockUntil(t *testing.T) {
	f := NewFake(start)
	const sleepers = 5
	var wg sync.WaitGroup
	for i := range sleepers {
		wg.Go(func() {
			if err := f.Sleep(context.Background(), time.Duration(i+1)*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
	f.BlockUntil(sleepers)
	if n := f.Waiters(); n != sleepers {
		t.Fatalf("Waiters = %d, want %d", n, sleepers)
	}
	if n := f.Advance(sleepers * time.Second); n != sleepers {
		t.Errorf("Advance fired %d, want %d", n, sleepers)
	}
	wg.Wait()
	f.BlockUntil(0) // already true: returns at once
}

// TestFakeConcurrent drives many sleepers, timers, resets and callbacks
// from several goroutines while another moves the time as fast as it can;
// run it with -race.
func TestFakeConcurrent(t *testing.T) {
	f := NewFake(start)
	const workers, rounds = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				d := time.Duration(1+(w+r)%7) * time.Millisecond
				switch r % 3 {
				case 0:
					if err := f.Sleep(context.Background(), d); err != nil {
						t.Error(err)
					}
				case 1:
					tm := f.NewTimer(d)
					tm.Reset(d)
					<-tm.C()
				default:
					done := make(chan struct{})
					f.AfterFunc(d, func() { close(done) })
					<-done
				}
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	for {
		select {
		case <-finished:
			return
		default:
			f.Advance(time.Millisecond)
			runtime.Gosched()
		}
	}
}
