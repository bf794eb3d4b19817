package gateway

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// call is one call the outbox made to a fakePlatform.
type call struct {
	op   string // send, edit, sendPlain, editPlain
	chat Chat
	ref  MessageRef
	text string
	at   time.Time
}

// fakePlatform records every send and edit on calls and fails the calls
// for a text as fail scripts.
type fakePlatform struct {
	clk   clock.Clock
	caps  Caps
	calls chan call

	mu   sync.Mutex
	fail map[string][]error // per text, the failures of its next calls
	ids  int
}

func newFakePlatform(clk clock.Clock, caps Caps) *fakePlatform {
	return &fakePlatform{clk: clk, caps: caps, calls: make(chan call, 1000), fail: map[string][]error{}}
}

// failNext makes the next calls for text fail with errs, in order.
func (p *fakePlatform) failNext(text string, errs ...error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail[text] = append(p.fail[text], errs...)
}

func (p *fakePlatform) do(c call) (MessageRef, error) {
	c.at = p.clk.Now()
	p.calls <- c
	p.mu.Lock()
	defer p.mu.Unlock()
	if errs := p.fail[c.text]; len(errs) > 0 {
		p.fail[c.text] = errs[1:]
		return MessageRef{}, errs[0]
	}
	if c.ref.ID != "" {
		return c.ref, nil
	}
	p.ids++
	return MessageRef{Chat: c.chat, ID: strconv.Itoa(p.ids)}, nil
}

func (p *fakePlatform) Name() string { return "fake" }
func (p *fakePlatform) Caps() Caps   { return p.caps }
func (p *fakePlatform) Receive(context.Context, func(context.Context, Event) error) error {
	return nil
}
func (p *fakePlatform) Send(_ context.Context, chat Chat, m Outgoing) (MessageRef, error) {
	return p.do(call{op: "send", chat: chat, text: m.Text})
}
func (p *fakePlatform) Edit(_ context.Context, ref MessageRef, m Outgoing) error {
	_, err := p.do(call{op: "edit", chat: ref.Chat, ref: ref, text: m.Text})
	return err
}
func (p *fakePlatform) Answer(context.Context, Event, string) error { return nil }
func (p *fakePlatform) Typing(context.Context, Chat) error          { return nil }

// plainPlatform is a fakePlatform that can send plain text.
type plainPlatform struct{ *fakePlatform }

func (p plainPlatform) SendPlain(_ context.Context, chat Chat, m Outgoing) (MessageRef, error) {
	return p.do(call{op: "sendPlain", chat: chat, text: m.Text})
}
func (p plainPlatform) EditPlain(_ context.Context, ref MessageRef, m Outgoing) error {
	_, err := p.do(call{op: "editPlain", chat: ref.Chat, ref: ref, text: m.Text})
	return err
}

var (
	_ Platform    = (*fakePlatform)(nil)
	_ PlainSender = plainPlatform{}
)

// outboxTest is an Outbox on a fake clock and platform, with what it
// hands to Undelivered, what it logs and which chats' goroutines ended.
type outboxTest struct {
	t           *testing.T
	o           *Outbox
	p           *fakePlatform
	clk         *clock.Fake
	t0          time.Time
	undelivered chan Undelivered
	exited      chan chatKey
	logs        *syncBuffer
}

func newOutboxTest(t *testing.T, plain bool, opt OutboxOptions) *outboxTest {
	t.Helper()
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	ot := &outboxTest{
		t: t, clk: clock.NewFake(t0), t0: t0,
		undelivered: make(chan Undelivered, 100), exited: make(chan chatKey, 100), logs: &syncBuffer{},
	}
	ot.p = newFakePlatform(ot.clk, Caps{MaxText: 4096, CanEdit: true, SendEvery: time.Second})
	opt.Platform = ot.p
	if plain {
		opt.Platform = plainPlatform{ot.p}
	}
	opt.Clock = ot.clk
	opt.Logger = slog.New(slog.NewTextHandler(ot.logs, nil))
	opt.Undelivered = func(_ context.Context, u Undelivered) error {
		ot.undelivered <- u
		return nil
	}
	ot.o = NewOutbox(opt)
	ot.o.exitedChat = func(k chatKey) { ot.exited <- k }
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = ot.o.Close(ctx)
	})
	return ot
}

// queue queues a send as Send does, without waiting, so that a test
// fixes the order of its messages.
func (ot *outboxTest) queue(session string, chat Chat, text string) *item {
	ot.t.Helper()
	it := &item{session: session, chat: chat, msg: Outgoing{Text: text}, done: make(chan struct{})}
	if err := ot.o.enqueue(it); err != nil {
		ot.t.Fatal(err)
	}
	return it
}

// next returns the next call to the platform, failing the test when none
// comes.
func (ot *outboxTest) next() call {
	ot.t.Helper()
	select {
	case c := <-ot.p.calls:
		return c
	case <-time.After(10 * time.Second):
		ot.t.Fatal("no call to the platform")
		return call{}
	}
}

// expect checks that the next call is op of text at t0+at.
func (ot *outboxTest) expect(op, text string, at time.Duration) call {
	ot.t.Helper()
	c := ot.next()
	if c.op != op || c.text != text || !c.at.Equal(ot.t0.Add(at)) {
		ot.t.Fatalf("call %s %q at +%s, want %s %q at +%s", c.op, c.text, c.at.Sub(ot.t0), op, text, at)
	}
	return c
}

// quiet waits until n goroutines are waiting on the clock and checks that
// no call is made meanwhile.
func (ot *outboxTest) quiet(n int) {
	ot.t.Helper()
	ot.clk.BlockUntil(n)
	select {
	case c := <-ot.p.calls:
		ot.t.Fatalf("unexpected call %s %q at +%s", c.op, c.text, c.at.Sub(ot.t0))
	default:
	}
}

// advance moves the clock on by d once the one chat's goroutine waits,
// and checks that no call was made before.
func (ot *outboxTest) advance(d time.Duration) {
	ot.t.Helper()
	ot.quiet(1)
	ot.clk.Advance(d)
}

// result waits for a queued send's outcome.
func (ot *outboxTest) result(it *item) (MessageRef, error) {
	ot.t.Helper()
	select {
	case <-it.done:
		return it.result, it.err
	case <-time.After(10 * time.Second):
		ot.t.Fatalf("send of %q never finished", it.msg.Text)
		return MessageRef{}, nil
	}
}

func (ot *outboxTest) nextUndelivered() Undelivered {
	ot.t.Helper()
	select {
	case u := <-ot.undelivered:
		return u
	case <-time.After(10 * time.Second):
		ot.t.Fatal("nothing handed to Undelivered")
		return Undelivered{}
	}
}

// syncBuffer is a bytes.Buffer safe for the outbox's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
