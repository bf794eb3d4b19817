package telegram_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
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
	srv   *telegramtest.Server
	tg    *telegram.Adapter
	clock *clock.Fake
	logs  *logBuf
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{srv: telegramtest.New(telegramtest.Options{}), clock: clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)), logs: &logBuf{}}
	t.Cleanup(h.srv.Close)
	tg, err := telegram.New(telegram.Options{
		Token: h.srv.Token, BaseURL: h.srv.URL, Clock: h.clock,
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	h.tg = tg
	return h
}

// receive runs Receive with deliver until the test ends.
func (h *harness) receive(t *testing.T, deliver func(context.Context, gateway.Event) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.tg.Receive(ctx, deliver) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Receive: %v", err)
		}
	})
}

// events runs Receive, taking every event into the returned channel.
func (h *harness) events(t *testing.T) <-chan gateway.Event {
	ch := make(chan gateway.Event, 100)
	h.receive(t, func(_ context.Context, ev gateway.Event) error { ch <- ev; return nil })
	return ch
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func next(t *testing.T, ch <-chan gateway.Event) gateway.Event {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return gateway.Event{}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
