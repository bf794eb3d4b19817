package gateway

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor fails the test when ch is not closed in time. Nothing here
// sleeps: the jobs signal what they reach.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// A chat's jobs run one at a time in order; other chats run beside them;
// and a chat with nothing left to do is forgotten.
func TestChatsOrderAndParallel(t *testing.T) {
	c := newChats(context.Background(), false)
	var mu sync.Mutex
	var order []string
	var running, overlap atomic.Int32
	job := func(name string) Job {
		return func(context.Context) {
			if running.Add(1) > 1 {
				overlap.Add(1)
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			running.Add(-1)
		}
	}
	// Chat b's job can only end once chat a's has started: they must run
	// at the same time.
	aStarted, bDone := make(chan struct{}), make(chan struct{})
	c.submit("b", false, func(context.Context) { waitFor(t, aStarted, "chat a"); close(bDone) })
	c.submit("a", false, func(context.Context) { close(aStarted); waitFor(t, bDone, "chat b") })
	for i := range 20 {
		c.submit("c", false, job(fmt.Sprint(i)))
	}
	c.wait()
	if overlap.Load() != 0 {
		t.Errorf("jobs of one chat overlapped %d times", overlap.Load())
	}
	for i, name := range order {
		if name != fmt.Sprint(i) {
			t.Fatalf("chat c's jobs ran in the order %v", order)
		}
	}
	if n := c.active(); n != 0 || c.busy("c") {
		t.Errorf("%d chats still held after their work ended", n)
	}
}

// In interrupt mode a new message stops the running turn and is then
// worked on; in queue mode it waits, unless it is urgent (/stop, /new).
func TestChatsBusyModes(t *testing.T) {
	for _, tt := range []struct {
		interrupt, urgent, wantStopped bool
	}{
		{true, false, true},
		{false, false, false},
		{false, true, true},
	} {
		t.Run(fmt.Sprintf("interrupt=%v urgent=%v", tt.interrupt, tt.urgent), func(t *testing.T) {
			c := newChats(context.Background(), tt.interrupt)
			started, release := make(chan struct{}), make(chan struct{})
			var stopped atomic.Bool
			c.submit("k", false, func(ctx context.Context) {
				close(started)
				select {
				case <-ctx.Done():
					stopped.Store(true)
				case <-release:
				}
			})
			waitFor(t, started, "the first turn")
			second := make(chan struct{})
			c.submit("k", tt.urgent, func(context.Context) { close(second) })
			if !tt.wantStopped {
				close(release)
			}
			waitFor(t, second, "the second message's job")
			c.wait()
			if stopped.Load() != tt.wantStopped {
				t.Errorf("the running turn stopped: %v, want %v", stopped.Load(), tt.wantStopped)
			}
		})
	}
}

func TestChatsStop(t *testing.T) {
	c := newChats(context.Background(), false)
	if c.stop("k") {
		t.Error("stop of an idle chat reported a turn")
	}
	started, ended := make(chan struct{}), make(chan struct{})
	c.submit("k", false, func(ctx context.Context) { close(started); <-ctx.Done(); close(ended) })
	waitFor(t, started, "the turn")
	if !c.stop("k") {
		t.Error("stop of a busy chat reported none")
	}
	waitFor(t, ended, "the stopped turn to end")
	c.wait()
}

// Ending the gateway's context stops every running job.
func TestChatsShutdown(t *testing.T) {
	base, cancel := context.WithCancel(context.Background())
	c := newChats(base, false)
	started := make(chan struct{}, 3)
	for i := range 3 {
		c.submit(fmt.Sprint(i), false, func(ctx context.Context) { started <- struct{}{}; <-ctx.Done() })
	}
	for range 3 {
		<-started
	}
	cancel()
	c.wait()
	if c.active() != 0 {
		t.Errorf("%d chats left after shutdown", c.active())
	}
}

// active returns how many chats have work.
func (c *chats) active() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
