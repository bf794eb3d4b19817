package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// ErrOutboxClosed is returned by Send and Edit after Close; the message
// has been handed to Undelivered.
var ErrOutboxClosed = errors.New("gateway: the outbox is closed")

// OutboxOptions configure an Outbox. Only Platform is required.
type OutboxOptions struct {
	Platform Platform
	// Clock paces the sends; nil is the wall clock.
	Clock  clock.Clock
	Logger *slog.Logger
	// Undelivered stores a message that could not be sent, so that it is
	// not lost; nil only logs it.
	Undelivered func(context.Context, Undelivered) error
	// MaxAttempts is how many times a message is tried when the platform
	// fails for a passing reason (Temporary); 0 means 5.
	MaxAttempts int
	// Burst is how many sends to a chat may go at once before the pace of
	// Caps.SendEvery applies; 0 means 1.
	Burst int
	// Backoff is the wait before the first retry after a Temporary
	// failure, doubled for each retry up to MaxBackoff; 0 means a second
	// and 30 seconds.
	Backoff, MaxBackoff time.Duration
}

// Undelivered is a message the outbox gave up on.
type Undelivered struct {
	SessionID string
	Chat      Chat
	// Ref is the message an edit was for; its ID is "" for a send.
	Ref     MessageRef
	Message Outgoing
	// Err says why: the platform's last failure, or ErrOutboxClosed.
	Err      error
	Attempts int
	Time     time.Time
}

// Outbox is the gateway's outbound queue: one queue per chat (chat id and
// thread), paced to the platform's Caps.SendEvery with a token bucket, so
// that streaming edits and split replies cannot earn a flood ban. A rate
// limit holds every queued message of its chat until the platform's
// retry-after has passed; a formatting error is answered by one resend
// as plain text (through PlainSender where the platform has it, else
// with its Markdown escaped); a passing failure is retried with
// backoff; and a
// message that cannot be sent is handed to Undelivered and logged with
// its session id, never dropped.
//
// A chat costs a goroutine only while it has something queued, and until
// its bucket has filled again after the last send; an idle chat costs
// nothing. An Outbox is safe for concurrent use.
type Outbox struct {
	platform    Platform
	clock       clock.Clock
	log         *slog.Logger
	undelivered func(context.Context, Undelivered) error
	every       time.Duration
	canEdit     bool
	maxText     int
	measure     func(string) int
	maxAttempts int
	burst       int
	backoff     time.Duration
	maxBackoff  time.Duration

	// stop ends the platform calls and waits of every chat; Close calls
	// it when its ctx ends before the queues are drained.
	stop    context.Context
	cancel  context.CancelFunc
	closing chan struct{} // closed by Close: no new messages

	mu      sync.Mutex
	chats   map[chatKey]*chatQueue
	closed  bool
	workers int
	idle    chan struct{} // closed when closed and workers == 0

	// exitedChat, when set (by tests), learns that a chat's goroutine
	// ended.
	exitedChat func(chatKey)
}

// chatKey tells the queues apart: a chat, or a thread in it.
type chatKey struct{ id, thread string }

// chatQueue is the queue of one chat and the state of its token bucket.
type chatQueue struct {
	key   chatKey
	items []*item
	// tat is the theoretical arrival time of the bucket (GCRA): a send
	// may go when now >= tat - (burst-1)*every, and each send moves tat
	// on by every. The bucket is full again once now >= tat.
	tat time.Time
	// hold is when a rate limit or a backoff lets the chat send again.
	hold time.Time
	// wake tells the chat's goroutine, while it waits idle, that
	// something was queued; it is sent and emptied under Outbox.mu, so
	// that a value in it is news.
	wake chan struct{}
}

// item is one queued send or edit.
type item struct {
	session string
	chat    Chat
	edit    bool
	ref     MessageRef // the message edited
	msg     Outgoing
	// plain is set once a send failed as BadFormat: it is resent as
	// plain text.
	plain bool
	// tries counts every call to the platform, counted the calls that
	// failed for a reason of the message's (not a rate limit).
	tries, counted int
	// done is closed with result and err set; nil for edits, which no
	// one waits for.
	done   chan struct{}
	result MessageRef
	err    error
}

// NewOutbox returns an Outbox sending to opt.Platform.
func NewOutbox(opt OutboxOptions) *Outbox {
	caps := opt.Platform.Caps()
	o := &Outbox{
		platform:    opt.Platform,
		clock:       clock.OrReal(opt.Clock),
		log:         opt.Logger,
		undelivered: opt.Undelivered,
		every:       max(caps.SendEvery, 0),
		canEdit:     caps.CanEdit,
		maxText:     caps.MaxText,
		measure:     caps.Measure,
		maxAttempts: opt.MaxAttempts,
		burst:       opt.Burst,
		backoff:     opt.Backoff,
		maxBackoff:  opt.MaxBackoff,
		closing:     make(chan struct{}),
		chats:       map[chatKey]*chatQueue{},
		idle:        make(chan struct{}),
	}
	if o.measure == nil {
		o.measure = ByteLen
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	if o.maxAttempts <= 0 {
		o.maxAttempts = 5
	}
	if o.burst <= 0 {
		o.burst = 1
	}
	if o.backoff <= 0 {
		o.backoff = time.Second
	}
	if o.maxBackoff <= 0 {
		o.maxBackoff = 30 * time.Second
	}
	o.stop, o.cancel = context.WithCancel(context.Background())
	return o
}

// Send queues m for chat and waits until it is sent, returning the
// reference for later edits. m.Text must fit Caps.MaxText (Split cuts
// it): a longer one is refused, as the platform would refuse it. A message that cannot be sent is handed to
// Undelivered and its failure returned. ctx bounds only the wait: a
// message already queued is still sent when ctx ends.
func (o *Outbox) Send(ctx context.Context, sessionID string, chat Chat, m Outgoing) (MessageRef, error) {
	if err := ctx.Err(); err != nil {
		return MessageRef{}, err
	}
	if err := o.check(m); err != nil {
		return MessageRef{}, err
	}
	it := &item{session: sessionID, chat: chat, msg: m, done: make(chan struct{})}
	if err := o.enqueue(it); err != nil {
		return MessageRef{}, err
	}
	select {
	case <-it.done:
		return it.result, it.err
	case <-ctx.Done():
		return MessageRef{}, ctx.Err()
	}
}

// Edit queues a replacement of the message ref with m and returns
// without waiting for it: a reply that streams edits its message often,
// and only its latest text matters, so an edit still queued when a newer
// one of the same message arrives is replaced by it. An edit that cannot
// be made is handed to Undelivered. On a platform that cannot edit, Edit
// returns ErrCannotEdit and queues nothing.
func (o *Outbox) Edit(ctx context.Context, sessionID string, ref MessageRef, m Outgoing) error {
	if !o.canEdit {
		return ErrCannotEdit
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := o.check(m); err != nil {
		return err
	}
	return o.enqueue(&item{session: sessionID, chat: ref.Chat, edit: true, ref: ref, msg: m})
}

// Queued is how many sends and edits wait in the outbox, over every
// chat; the one being sent is not counted.
func (o *Outbox) Queued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, q := range o.chats {
		n += len(q.items)
	}
	return n
}

// check refuses a text longer than the platform takes, which no retry
// could send.
func (o *Outbox) check(m Outgoing) error {
	if o.maxText <= 0 {
		return nil
	}
	if n := o.measure(m.Text); n > o.maxText {
		return fmt.Errorf("gateway: Outgoing.Text measures %d, over %s's limit of %d (Caps.MaxText); cut it with gateway.Split first",
			n, o.platform.Name(), o.maxText)
	}
	return nil
}

// enqueue adds it to its chat's queue, replacing a queued edit of the
// same message, and starts the chat's goroutine when it has none.
func (o *Outbox) enqueue(it *item) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		o.giveUp(it, ErrOutboxClosed)
		return ErrOutboxClosed
	}
	key := chatKey{it.chat.ID, it.chat.Thread}
	q := o.chats[key]
	if q == nil {
		q = &chatQueue{key: key, wake: make(chan struct{}, 1)}
		o.chats[key] = q
		o.workers++
		go o.work(q)
	}
	if !it.edit || !coalesce(q, it) {
		q.items = append(q.items, it)
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
	o.mu.Unlock()
	return nil
}

// coalesce replaces the text of a queued edit of the message it edits
// with its newer one, and reports whether there was one. o.mu is held.
func coalesce(q *chatQueue, it *item) bool {
	for _, old := range q.items {
		if old.edit && old.ref == it.ref {
			old.msg, old.session = it.msg, it.session
			return true
		}
	}
	return false
}

// Close stops taking messages and waits until every queue is sent, or
// until ctx ends; then what is left is handed to Undelivered.
func (o *Outbox) Close(ctx context.Context) error {
	o.mu.Lock()
	if !o.closed {
		o.closed = true
		close(o.closing)
		if o.workers == 0 {
			close(o.idle)
		}
	}
	o.mu.Unlock()
	select {
	case <-o.idle:
		o.cancel()
		return nil
	case <-ctx.Done():
	}
	o.cancel()
	<-o.idle
	return fmt.Errorf("gateway: closing the outbox: %w", ctx.Err())
}
