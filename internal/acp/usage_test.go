package acp

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// TestPromptReportsUsage checks that a turn's tokens come back in the
// prompt response, and that a usage_update tells how full the context is
// after the last model call and what the session cost so far.
func TestPromptReportsUsage(t *testing.T) {
	var store session.Store
	turns := turnFunc(func(ctx context.Context, id string, _ engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
		sink.Event(agent.Event{Kind: agent.EventUsage, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50}})
		sink.Event(agent.Event{Kind: agent.EventUsage, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 900}})
		if err := store.AddUsage(ctx, id, session.Usage{InputTokens: 2200, OutputTokens: 130, CostUSD: 0.0125}); err != nil {
			t.Error(err)
		}
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone,
			Usage: llm.Usage{InputTokens: 2200, OutputTokens: 130, CacheReadTokens: 900}}}, nil
	})
	r := newRig(t, turns)
	store = r.store
	r.srv.opt.Models = []string{"gpt-4o"}
	id := r.newSession(t, t.TempDir())
	resp, err := r.prompt(id, "count")
	if err != nil {
		t.Fatal(err)
	}
	u := resp.Usage
	if u == nil || u.InputTokens != 2200 || u.OutputTokens != 130 || u.TotalTokens != 2330 || u.CachedReadTokens == nil || *u.CachedReadTokens != 900 {
		t.Errorf("prompt usage = %+v", u)
	}
	size, _ := llm.ContextWindow("gpt-4o")
	want := fmt.Sprintf("usage: 1280/%d 0.0125 USD", size)
	if got := r.cli.seen(); !slices.Contains(got, want) {
		t.Errorf("updates %q; want %q", got, want)
	}
}
