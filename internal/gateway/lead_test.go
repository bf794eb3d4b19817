package gateway

import (
	"context"
	"errors"
	"testing"
	"time"
)

// receiver is a platform that records when it receives; OneConsumer as
// given.
type receiver struct {
	name    string
	one     bool
	started chan struct{}
	stopped chan struct{}
}

func newReceiver(name string, one bool) *receiver {
	return &receiver{name: name, one: one, started: make(chan struct{}, 10), stopped: make(chan struct{}, 10)}
}

func (p *receiver) Name() string { return p.name }
func (p *receiver) Caps() Caps   { return Caps{MaxText: 100, OneConsumer: p.one} }
func (p *receiver) Receive(ctx context.Context, _ func(context.Context, Event) error) error {
	p.started <- struct{}{}
	<-ctx.Done()
	p.stopped <- struct{}{}
	return nil
}
func (p *receiver) Send(context.Context, Chat, Outgoing) (MessageRef, error) {
	return MessageRef{}, nil
}
func (p *receiver) Edit(context.Context, MessageRef, Outgoing) error { return nil }
func (p *receiver) Answer(context.Context, Event, string) error      { return nil }
func (p *receiver) Typing(context.Context, Chat) error               { return nil }

// lease is a leadership the test grants, loses and sees released.
type lease struct {
	lost     chan struct{}
	released chan struct{}
}

func newLease() *lease { return &lease{lost: make(chan struct{}), released: make(chan struct{})} }

func (l *lease) Lost() <-chan struct{} { return l.lost }
func (l *lease) Release() error        { close(l.released); return nil }

// elector grants what the test hands it, reporting each name asked for.
type elector struct {
	asked  chan string
	grants chan *lease
}

func (e *elector) Lead(ctx context.Context, name string) (Lease, error) {
	e.asked <- name
	select {
	case l := <-e.grants:
		return l, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// await fails the test unless ch delivers within a bound.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
		var zero T
		return zero
	}
}

// A platform that allows one consumer is received from only while this
// replica leads its name, stops when the lead is lost and starts again
// when it is won back; a webhook-style platform is received from at
// once, without an election.
func TestRunnerReceivesOnlyWhileLeading(t *testing.T) {
	polled, hooked := newReceiver("telegram", true), newReceiver("webhook", false)
	el := &elector{asked: make(chan string, 10), grants: make(chan *lease)}
	r := New(Options{Engine: &fakeEngine{}, Platforms: []Platform{polled, hooked}, Elector: el})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()

	await(t, hooked.started, "receiving from the webhook platform")
	if name := await(t, el.asked, "an election"); name != "telegram" {
		t.Fatalf("elected %q; want telegram", name)
	}
	if len(polled.started) != 0 {
		t.Fatal("the one-consumer platform was received from before this replica led it")
	}
	first := newLease()
	el.grants <- first
	await(t, polled.started, "receiving once leading")
	close(first.lost)
	await(t, polled.stopped, "receiving stopped when the lead was lost")
	await(t, first.released, "the lost lease released")
	await(t, el.asked, "the next election")
	if len(polled.started) != 0 {
		t.Fatal("receiving resumed before this replica led again")
	}
	second := newLease()
	el.grants <- second
	await(t, polled.started, "receiving once leading again")
	cancel()
	if err := await(t, done, "Run returning"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	await(t, second.released, "the lease released at stop")
	if len(hooked.started) != 0 {
		t.Fatal("the webhook platform was started more than once")
	}
}

// Without an elector (SQLite, one machine) every platform is received
// from at once, one consumer or not.
func TestRunnerWithoutElectorReceivesAll(t *testing.T) {
	polled := newReceiver("telegram", true)
	r := New(Options{Engine: &fakeEngine{}, Platforms: []Platform{polled}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	await(t, polled.started, "receiving")
	cancel()
	if err := await(t, done, "Run returning"); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// failing is a platform whose Receive fails for good.
type failing struct{ *receiver }

func (failing) Receive(context.Context, func(context.Context, Event) error) error {
	return errors.New("the token was refused")
}

// A platform that fails for good while leading gives the lead up, so
// another replica may try, and its error is Run's.
func TestRunnerLeaderFailsForGood(t *testing.T) {
	p := failing{newReceiver("telegram", true)}
	el := &elector{asked: make(chan string, 10), grants: make(chan *lease, 1)}
	l := newLease()
	el.grants <- l
	r := New(Options{Engine: &fakeEngine{}, Platforms: []Platform{p}, Elector: el})
	err := r.Run(context.Background())
	if err == nil || err.Error() != "telegram: the token was refused" {
		t.Fatalf("Run: %v; want the platform's failure", err)
	}
	await(t, l.released, "the lease released")
}
