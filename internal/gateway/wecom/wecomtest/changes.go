package wecomtest

import (
	"context"
	"sync"
)

// changes wakes the tests waiting for a server's state to change, so
// they wait for what they expect instead of sleeping.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// touch wakes every waiter.
func (c *changes) touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

// next returns a channel closed at the next touch.
func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// Wait blocks until cond (called without the server's lock) holds, or
// ctx ends.
func (c *changes) Wait(ctx context.Context, cond func() bool) error {
	for {
		ch := c.next()
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}
