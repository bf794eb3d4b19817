package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestIdleSince: an engine is idle from when it is made; a turn running
// makes it busy, and its start is when the idleness counts from; a job's
// turn does not count.
func TestIdleSince(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	fake := clock.NewFake(t0)
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: tool.NewRegistry()}, Clock: fake})
	t.Cleanup(e.Close)
	if since, busy := e.IdleSince(); !since.Equal(t0) || busy {
		t.Fatalf("new engine: idle since %v, busy %v", since, busy)
	}
	fake.Advance(3 * time.Hour)
	release := make(chan struct{})
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		<-release
		return llmtest.Reply{Text: "done"}
	})
	done := make(chan error, 1)
	go func() {
		_, err := e.Turn(context.Background(), "", engine.Input{Text: "hello", Source: "cli"}, nil)
		done <- err
	}()
	for _, busy := e.IdleSince(); !busy; _, busy = e.IdleSince() {
		time.Sleep(time.Millisecond)
	}
	if since, _ := e.IdleSince(); !since.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("during the turn: idle since %v", since)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if since, busy := e.IdleSince(); busy || !since.Equal(t0.Add(3*time.Hour)) {
		t.Errorf("after the turn: idle since %v, busy %v", since, busy)
	}

	// A scheduled job's turn is nobody's conversation: it does not count.
	fake.Advance(time.Hour)
	if _, err := e.Turn(context.Background(), "", engine.Input{Text: "report", Source: "cron"}, nil); err != nil {
		t.Fatal(err)
	}
	if since, _ := e.IdleSince(); !since.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("after a job's turn: idle since %v", since)
	}
}
