package gateway

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// work sends the queue of one chat, one message at a time and in order,
// at the chat's pace. It ends when the queue is empty and the bucket
// full again (at once when the outbox is closing), or when the outbox
// stops, handing what is left to Undelivered.
func (o *Outbox) work(q *chatQueue) {
	defer o.exited(q)
	var w waiter
	defer w.stop()
	for {
		it, at, idle, done := o.next(q)
		if done {
			return
		}
		if it != nil {
			o.deliver(q, it)
			continue
		}
		if !w.wait(o, q, at, idle) {
			o.abandon(q, nil)
			return
		}
	}
}

// next takes the next item the chat may send now, or says until when to
// wait (and whether the chat is idle meanwhile), or that the goroutine
// is done (and forgets the chat).
func (o *Outbox) next(q *chatQueue) (it *item, at time.Time, idle, done bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-q.wake: // what it announced is seen now
	default:
	}
	now := o.clock.Now()
	if len(q.items) == 0 {
		full := later(q.tat, q.hold)
		if o.closed || !now.Before(full) {
			delete(o.chats, q.key)
			return nil, time.Time{}, false, true
		}
		return nil, full, true, false
	}
	ready := later(q.hold, q.tat.Add(-time.Duration(o.burst-1)*o.every))
	if now.Before(ready) {
		return nil, ready, false, false
	}
	it = q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	q.tat = later(q.tat, now).Add(o.every)
	return it, time.Time{}, false, false
}

// waiter is the timer of a chat's goroutine. It is kept while its
// deadline stands, so that a wake-up that changes nothing does not set
// the timer again.
type waiter struct {
	t  clock.Timer
	at time.Time
}

// wait waits until at; an idle chat also wakes when something is queued
// or the outbox begins closing. It returns false when the outbox stopped.
func (w *waiter) wait(o *Outbox, q *chatQueue, at time.Time, idle bool) bool {
	if w.t == nil || !w.at.Equal(at) {
		w.stop()
		w.t, w.at = o.clock.NewTimer(at.Sub(o.clock.Now())), at
	}
	var wake <-chan struct{}
	var closing <-chan struct{}
	if idle {
		wake, closing = q.wake, o.closing
	}
	select {
	case <-w.t.C():
		w.t = nil
	case <-wake:
	case <-closing:
	case <-o.stop.Done():
		return false
	}
	return true
}

// stop stops the timer.
func (w *waiter) stop() {
	if w.t != nil {
		w.t.Stop()
		w.t = nil
	}
}

// exited counts a chat's goroutine out.
func (o *Outbox) exited(q *chatQueue) {
	o.mu.Lock()
	o.workers--
	if o.closed && o.workers == 0 {
		close(o.idle)
	}
	o.mu.Unlock()
	if o.exitedChat != nil {
		o.exitedChat(q.key)
	}
}

// deliver makes one call to the platform for it and settles what
// follows from its outcome.
func (o *Outbox) deliver(q *chatQueue, it *item) {
	it.tries++
	ref, err := o.call(it)
	if err == nil {
		it.result = ref
		it.finish()
		return
	}
	if o.stop.Err() != nil {
		o.abandon(q, it)
		return
	}
	kind, retryAfter := classify(err)
	log := o.log.With("session_id", it.session, "chat", it.chat.ID, "thread", it.chat.Thread,
		"edit", it.edit, "failure", kind.String(), "attempt", it.tries)
	o.mu.Lock()
	now := o.clock.Now()
	switch {
	case kind == RateLimited:
		wait := max(retryAfter, o.every, time.Second)
		q.hold = later(q.hold, now.Add(wait))
		o.requeue(q, it)
		o.mu.Unlock()
		log.Warn("gateway: the platform asked to wait; the chat's queue is held", "retry_after", wait)
		return
	case kind == BadFormat && !it.plain:
		it.plain = true
		it.counted++
		o.requeue(q, it)
		o.mu.Unlock()
		log.Warn("gateway: the platform could not parse the message; resending it as plain text", "error", err)
		return
	case kind == Temporary && it.counted+1 < o.maxAttempts:
		it.counted++
		wait := o.maxBackoff
		if it.counted <= 20 {
			wait = min(o.backoff<<(it.counted-1), o.maxBackoff)
		}
		q.hold = later(q.hold, now.Add(wait))
		o.requeue(q, it)
		o.mu.Unlock()
		log.Warn("gateway: sending failed; retrying", "error", err, "backoff", wait)
		return
	}
	o.mu.Unlock()
	o.giveUp(it, err)
}

// call sends or edits it, as plain text once it failed as BadFormat.
func (o *Outbox) call(it *item) (MessageRef, error) {
	ps, _ := o.platform.(PlainSender)
	m := it.msg
	if it.plain && ps == nil {
		m.Text = EscapeMarkdown(m.Text)
	}
	switch {
	case it.edit && it.plain && ps != nil:
		return it.ref, ps.EditPlain(o.stop, it.ref, m)
	case it.edit:
		return it.ref, o.platform.Edit(o.stop, it.ref, m)
	case it.plain && ps != nil:
		return ps.SendPlain(o.stop, it.chat, m)
	}
	return o.platform.Send(o.stop, it.chat, m)
}

// requeue puts a failed item back at the head of its chat's queue, so
// that the chat's order holds; an edit whose message has a newer edit
// queued is dropped for it, as its text is stale. o.mu is held.
func (o *Outbox) requeue(q *chatQueue, it *item) {
	if it.edit {
		for _, newer := range q.items {
			if newer.edit && newer.ref == it.ref {
				return
			}
		}
	}
	q.items = append(q.items, nil)
	copy(q.items[1:], q.items)
	q.items[0] = it
}

// abandon hands it (when not nil) and everything queued for the chat to
// Undelivered, once the outbox has stopped.
func (o *Outbox) abandon(q *chatQueue, it *item) {
	o.mu.Lock()
	items := q.items
	q.items = nil
	delete(o.chats, q.key)
	o.mu.Unlock()
	if it != nil {
		items = append([]*item{it}, items...)
	}
	for _, it := range items {
		o.giveUp(it, ErrOutboxClosed)
	}
}

// giveUp hands it to Undelivered, logs it with its session id and fails
// its Send.
func (o *Outbox) giveUp(it *item, cause error) {
	u := Undelivered{
		SessionID: it.session, Chat: it.chat, Message: it.msg,
		Err: cause, Attempts: it.tries, Time: o.clock.Now(),
	}
	if it.edit {
		u.Ref = it.ref
	}
	log := o.log.With("session_id", it.session, "chat", it.chat.ID, "thread", it.chat.Thread,
		"edit", it.edit, "attempts", it.tries, "text_bytes", len(it.msg.Text), "error", cause)
	stored := "not stored: no store for undelivered messages"
	if o.undelivered != nil {
		stored = "stored"
		if err := o.undelivered(context.WithoutCancel(o.stop), u); err != nil {
			stored = "not stored: " + err.Error()
		}
	}
	log.Error("gateway: a message could not be delivered", "undelivered", stored)
	it.err = fmt.Errorf("gateway: message to chat %q not delivered after %d attempts: %w", it.chat.ID, it.tries, cause)
	it.finish()
}

// finish wakes the Send waiting for it.
func (it *item) finish() {
	if it.done != nil {
		close(it.done)
	}
}

// classify says what kind of failure err is. An error that is not a
// *SendError is taken as Temporary, except ErrCannotEdit.
func classify(err error) (SendFailure, time.Duration) {
	if se, ok := errors.AsType[*SendError](err); ok {
		return se.Kind, se.RetryAfter
	}
	if errors.Is(err, ErrCannotEdit) {
		return Permanent, 0
	}
	return Temporary, 0
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
