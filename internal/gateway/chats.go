package gateway

import (
	"context"
	"sync"
)

// Job is one piece of work for a chat: a turn, or a command that must not
// overlap with one. It ends when its context does.
type Job func(ctx context.Context)

// chats runs the work of each chat one job at a time, in the order it
// arrived. A chat with nothing to do has no goroutine and no entry, so a
// gateway serving a thousand chats holds only those that are busy.
//
// A job submitted to a busy chat either interrupts the running one
// (interrupt, the default: people who write again usually mean to
// redirect) or waits behind it (queue). Either way it runs, and jobs of
// one chat never overlap, so a session never has two turns at once.
type chats struct {
	base context.Context
	// interrupt is set for busy mode interrupt.
	interrupt bool

	mu sync.Mutex
	m  map[string]*chatWork
	wg sync.WaitGroup
}

// chatWork is one busy chat: its waiting jobs and how to stop the
// running one.
type chatWork struct {
	waiting []Job
	cancel  context.CancelFunc
}

// newChats returns chats whose jobs run under base (ended by the
// gateway's shutdown).
func newChats(base context.Context, interrupt bool) *chats {
	return &chats{base: base, interrupt: interrupt, m: make(map[string]*chatWork)}
}

// submit adds job to chat key's work. With interrupt set, or when urgent
// (/stop, /new), the running job is told to stop first.
func (c *chats) submit(key string, urgent bool, job Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, busy := c.m[key]
	if !busy {
		q = &chatWork{}
		c.m[key] = q
		q.waiting = append(q.waiting, job)
		c.wg.Add(1)
		go c.run(key, q)
		return
	}
	if (c.interrupt || urgent) && q.cancel != nil {
		q.cancel()
	}
	q.waiting = append(q.waiting, job)
}

// stop interrupts chat key's running job, if any, and reports whether
// there was one. Jobs waiting behind it still run.
func (c *chats) stop(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok := c.m[key]
	if !ok || q.cancel == nil {
		return false
	}
	q.cancel()
	return true
}

// busy reports whether chat key has a job running or waiting.
func (c *chats) busy(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}

// wait blocks until every job has ended; the caller ends base first.
func (c *chats) wait() { c.wg.Wait() }

// run works through chat key's jobs and removes the chat when none is
// left.
func (c *chats) run(key string, q *chatWork) {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		if len(q.waiting) == 0 {
			delete(c.m, key)
			c.mu.Unlock()
			return
		}
		job := q.waiting[0]
		q.waiting = q.waiting[1:]
		ctx, cancel := context.WithCancel(c.base)
		q.cancel = cancel
		c.mu.Unlock()

		job(ctx)

		c.mu.Lock()
		q.cancel = nil
		c.mu.Unlock()
		cancel()
	}
}
