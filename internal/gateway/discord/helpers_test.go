package discord_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord"
	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// logBuf collects log lines safely from several goroutines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type harness struct {
	srv  *discordtest.Server
	dc   *discord.Adapter
	logs *logBuf
	// events gets what Receive delivered.
	events chan gateway.Event
	// done gets Receive's result.
	done chan error
}

// newHarness starts a server with a short heartbeat and an adapter on it;
// c is the adapter's and the server's clock (nil: the wall clock).
func newHarness(t *testing.T, c clock.Clock) *harness {
	t.Helper()
	h := &harness{
		srv:    discordtest.New(discordtest.Options{HeartbeatMillis: 100, Clock: c}),
		logs:   &logBuf{},
		events: make(chan gateway.Event, 64),
		done:   make(chan error, 1),
	}
	t.Cleanup(h.srv.Close)
	dc, err := discord.New(discord.Options{
		Token: h.srv.Token, BaseURL: h.srv.URL, Clock: c, Jitter: func() float64 { return 0 },
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	h.dc = dc
	t.Cleanup(func() {
		if strings.Contains(h.logs.String(), h.srv.Token) {
			t.Errorf("the token is in the log:\n%s", h.logs.String())
		}
	})
	return h
}

// receive runs Receive with deliver (nil: every event goes to h.events)
// until the test ends, and waits for the session to be live.
func (h *harness) receive(t *testing.T, deliver func(context.Context, gateway.Event) error) {
	t.Helper()
	if deliver == nil {
		deliver = func(_ context.Context, ev gateway.Event) error { h.events <- ev; return nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.done <- h.dc.Receive(ctx, deliver) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			t.Error("Receive did not return after its context ended")
		}
	})
	h.live(t)
}

// live waits until the adapter has a session.
func (h *harness) live(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.WaitLive(ctx); err != nil {
		t.Fatalf("the adapter did not connect: %v\n%s", err, h.logs.String())
	}
}

// next returns the next event delivered.
func (h *harness) next(t *testing.T) gateway.Event {
	t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("no event delivered\n%s", h.logs.String())
	}
	return gateway.Event{}
}

// none checks that nothing more is delivered once a marker message,
// sent after, arrives.
func (h *harness) none(t *testing.T, channel string) {
	t.Helper()
	m := h.srv.UserMessage(discordtest.Incoming{Channel: channel, Content: "marker"})
	if ev := h.next(t); ev.ID != m.ID {
		t.Fatalf("delivered %+v, want nothing before the marker", ev)
	}
}

// wait waits for cond on the server.
func (h *harness) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.Wait(ctx, cond); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, h.logs.String())
	}
}

// newAdapter returns another adapter on srv, with token.
func newAdapter(t *testing.T, srv *discordtest.Server, token string) *discord.Adapter {
	t.Helper()
	dc, err := discord.New(discord.Options{Token: token, BaseURL: srv.URL, Jitter: func() float64 { return 0 }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}
