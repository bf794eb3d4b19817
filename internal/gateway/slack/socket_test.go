package slack

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
)

// socketRun runs Receive in Socket Mode against srv until the test ends;
// take decides whether each event is taken.
func socketRun(t *testing.T, srv *slacktest.Server, take func(gateway.Event) error) <-chan error {
	t.Helper()
	a := fakeAdapter(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Receive(ctx, func(_ context.Context, ev gateway.Event) error { return take(ev) }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Receive did not return after its context ended")
		}
	})
	return done
}

type events struct {
	mu  sync.Mutex
	got []gateway.Event
}

func (e *events) take(ev gateway.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
	return nil
}

func (e *events) list() []gateway.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]gateway.Event(nil), e.got...)
}

func waitFor(t *testing.T, srv *slacktest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Wait(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// Over Socket Mode every envelope is acknowledged by its envelope_id
// once its event was taken: a message and a button press.
func TestSocketModeDeliversAndAcks(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	var evs events
	socketRun(t, srv, evs.take)
	waitFor(t, srv, "a connection", func() bool { _, open := srv.Connections(); return open == 1 })
	ts := srv.Message(slacktest.Incoming{Text: "hello"})
	waitFor(t, srv, "the ack", func() bool { return len(srv.Acked()) == 1 && len(srv.Pending()) == 0 })
	got := evs.list()
	if len(got) != 1 || got[0].Text != "hello" || got[0].MessageID != ts {
		t.Fatalf("events %+v", got)
	}
	srv.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> hi", Mention: true})
	waitFor(t, srv, "both acks", func() bool { return len(srv.Acked()) == 3 })
	if got := evs.list(); got[1].ID != got[2].ID {
		t.Errorf("the message and app_mention events of one mention have IDs %q and %q", got[1].ID, got[2].ID)
	}
}

// An event that was not taken is not acknowledged, so Slack sends it
// again; after a dropped socket the adapter reconnects and takes it.
func TestSocketModeReconnectsAndGetsWhatWasNotTaken(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	var (
		evs     events
		once    sync.Once
		refused = make(chan struct{})
	)
	socketRun(t, srv, func(ev gateway.Event) error {
		first := false
		once.Do(func() { first = true; close(refused) })
		if first {
			return errors.New("the store is busy")
		}
		return evs.take(ev)
	})
	waitFor(t, srv, "a connection", func() bool { _, open := srv.Connections(); return open == 1 })
	srv.Message(slacktest.Incoming{Text: "first"})
	select {
	case <-refused:
	case <-time.After(10 * time.Second):
		t.Fatal("the event never came")
	}
	if len(srv.Acked()) != 0 {
		t.Fatal("an event that was not taken was acknowledged")
	}
	srv.Drop()
	srv.Message(slacktest.Incoming{Text: "while away"})
	waitFor(t, srv, "a second connection and both acks", func() bool {
		opened, _ := srv.Connections()
		return opened == 2 && len(srv.Pending()) == 0
	})
	var texts []string
	for _, ev := range evs.list() {
		texts = append(texts, ev.Text)
	}
	if strings.Join(texts, ",") != "first,while away" {
		t.Errorf("taken %q, want first and while away", texts)
	}
}

// On disconnect the adapter opens a new connection and then closes the
// old one; events go on.
func TestSocketModeRefreshesOnDisconnect(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	var evs events
	socketRun(t, srv, evs.take)
	waitFor(t, srv, "a connection", func() bool { _, open := srv.Connections(); return open == 1 })
	srv.Disconnect("refresh_requested")
	waitFor(t, srv, "the new connection, the old closed", func() bool {
		opened, open := srv.Connections()
		return opened == 2 && open == 1
	})
	srv.Message(slacktest.Incoming{Text: "after the refresh"})
	waitFor(t, srv, "the ack", func() bool { return len(srv.Acked()) == 1 })
	if got := evs.list(); len(got) != 1 || got[0].Text != "after the refresh" {
		t.Errorf("events %+v", got)
	}
}

// A token Slack refuses ends Receive with an error that names the key,
// not the token.
func TestSocketModeRefusedToken(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a, err := New(Options{BotToken: srv.BotToken, AppToken: "xapp-1-wrong-token", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Receive(context.Background(), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "app_token") || strings.Contains(err.Error(), "xapp-1-wrong-token") {
		t.Errorf("Receive = %v, want a refusal naming app_token without the token", err)
	}
	a, _ = New(Options{BotToken: "xoxb-wrong", AppToken: srv.AppToken, BaseURL: srv.URL})
	err = a.Receive(context.Background(), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "bot_token") || strings.Contains(err.Error(), "xoxb-wrong") {
		t.Errorf("Receive = %v, want a refusal naming bot_token without the token", err)
	}
}

// A connection that drops as soon as it is open is not redialed at once
// (Slack would be asked for a URL in a loop): the adapter waits, on its
// clock. One that lasted is replaced at once.
func TestSocketModeBacksOffAConnectionThatDropsAtOnce(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	clk := clock.NewFake(time.Unix(1_800_000_000, 0))
	// No pings: the backoff is then the only wait on the clock.
	a, err := New(Options{BotToken: srv.BotToken, AppToken: srv.AppToken, BaseURL: srv.URL, Clock: clk, PingEvery: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Receive(ctx, func(context.Context, gateway.Event) error { return nil }) }()
	defer func() { cancel(); <-done }()
	opened := func() int { n, _ := srv.Connections(); return n }
	waitFor(t, srv, "a connection", func() bool { _, open := srv.Connections(); return open == 1 })
	// An acknowledged event shows the adapter has read hello.
	srv.Message(slacktest.Incoming{Text: "first"})
	waitFor(t, srv, "the ack", func() bool { return len(srv.Acked()) == 1 })
	srv.Drop()
	sleeping := make(chan struct{})
	go func() { clk.BlockUntil(1); close(sleeping) }()
	select {
	case <-sleeping: // the backoff
	case <-time.After(10 * time.Second):
		t.Fatalf("the adapter did not back off; %d connections opened", opened())
	}
	if n := opened(); n != 1 {
		t.Fatalf("%d connections opened right after a connection that dropped at once", n)
	}
	clk.Advance(minBackoff)
	waitFor(t, srv, "the second connection", func() bool { _, open := srv.Connections(); return opened() == 2 && open == 1 })
	srv.Message(slacktest.Incoming{Text: "second"})
	waitFor(t, srv, "the ack", func() bool { return len(srv.Acked()) == 2 })
	clk.Advance(healthy) // the connection lasts
	srv.Drop()
	waitFor(t, srv, "the third connection, at once", func() bool { _, open := srv.Connections(); return opened() == 3 && open == 1 })
}

// Check says who the bot is and how events reach it, and names the token
// Slack refuses without showing it.
func TestCheck(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	ctx := context.Background()
	who, err := fakeAdapter(t, srv).Check(ctx)
	if err != nil || who != "@hermes (id UHERMES) in Test Team; Socket Mode" {
		t.Errorf("Check = %q, %v", who, err)
	}
	h, err := New(Options{BotToken: srv.BotToken, SigningSecret: "s", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if who, err := h.Check(ctx); err != nil || !strings.HasSuffix(who, "; Events API on /slack/events, signed with the signing secret") {
		t.Errorf("Check over HTTP = %q, %v", who, err)
	}
	for key, o := range map[string]Options{
		"app_token": {BotToken: srv.BotToken, AppToken: "xapp-1-wrong", BaseURL: srv.URL},
		"bot_token": {BotToken: "xoxb-wrong", AppToken: srv.AppToken, BaseURL: srv.URL},
	} {
		a, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), "refused "+key) || strings.Contains(err.Error(), "wrong") {
			t.Errorf("a wrong %s: %v", key, err)
		}
	}
}
