package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The real clock's tests wait a few milliseconds at most.

func TestRealSleep(t *testing.T) {
	c := Real{}
	begin := time.Now()
	if err := c.Sleep(context.Background(), 2*time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
	if d := time.Since(begin); d < 2*time.Millisecond {
		t.Errorf("Sleep(2ms) returned after %v", d)
	}
	if err := c.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestRealSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{0, time.Hour} {
		if err := (Real{}).Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(cancelled, %v) = %v, want context.Canceled", d, err)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := (Real{}).Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past the deadline = %v", err)
	}
}

func TestRealTimers(t *testing.T) {
	c := Real{}
	tm := c.NewTimer(time.Millisecond)
	<-tm.C()
	if tm.Stop() {
		t.Error("Stop after the fire = true")
	}
	if tm.Reset(time.Millisecond) {
		t.Error("Reset after the fire = true")
	}
	<-tm.C()

	idle := c.NewTimer(time.Hour)
	if !idle.Stop() {
		t.Error("Stop of a pending timer = false")
	}

	done := make(chan struct{})
	af := c.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	if af.C() != nil {
		t.Error("an AfterFunc timer has a channel")
	}
	if af.Stop() {
		t.Error("Stop after the callback ran = true")
	}
}

func TestOrReal(t *testing.T) {
	if _, ok := OrReal(nil).(Real); !ok {
		t.Errorf("OrReal(nil) = %T, want Real", OrReal(nil))
	}
	f := NewFake(start)
	if OrReal(f) != Clock(f) {
		t.Error("OrReal(f) is not f")
	}
}
