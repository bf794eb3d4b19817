package dingtalk

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
	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
)

// logBuffer collects an adapter's log, to check what it says and that no
// secret is in it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixture is an adapter talking to a fake DingTalk.
type fixture struct {
	t   *testing.T
	srv *dingtalktest.Server
	a   *Adapter
	log *logBuffer
}

// newFixture starts a fake DingTalk and an adapter on it; clk may be nil
// for the wall clock, and path turns on http mode.
func newFixture(t *testing.T, clk clock.Clock, path string) *fixture {
	t.Helper()
	return newFixtureOn(t, dingtalktest.Options{Clock: clk}, path)
}

// newFixtureOn is newFixture with the fake's options.
func newFixtureOn(t *testing.T, o dingtalktest.Options, path string) *fixture {
	t.Helper()
	clk := o.Clock
	srv := dingtalktest.New(o)
	t.Cleanup(srv.Close)
	log := &logBuffer{}
	a, err := New(Options{ClientID: srv.ClientID, ClientSecret: srv.ClientSecret, BaseURL: srv.URL, HTTPPath: path,
		Clock: clk, Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: srv, a: a, log: log}
	t.Cleanup(func() {
		if strings.Contains(log.String(), srv.ClientSecret) {
			t.Errorf("the client secret is in the log:\n%s", log.String())
		}
	})
	return f
}

// receive runs Receive until the test ends and returns the events it
// delivers; fail makes deliver refuse the next that many events.
func (f *fixture) receive(fail int) <-chan gateway.Event {
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan gateway.Event, 100)
	done := make(chan error, 1)
	var mu sync.Mutex
	go func() {
		done <- f.a.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			mu.Lock()
			defer mu.Unlock()
			if fail > 0 {
				fail--
				return context.DeadlineExceeded
			}
			events <- ev
			return nil
		})
	}()
	f.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			f.t.Errorf("Receive: %v", err)
		}
	})
	return events
}

func next(t *testing.T, events <-chan gateway.Event) gateway.Event {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event was delivered")
	}
	return gateway.Event{}
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
