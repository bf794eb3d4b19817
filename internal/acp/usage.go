package acp

import (
	"context"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// usageSink passes a turn's events on and keeps the usage of its last
// model call, which says how full the context is.
type usageSink struct {
	agent.Sink

	mu   sync.Mutex
	last llm.Usage
}

// Event records usage and passes e on.
func (s *usageSink) Event(e agent.Event) {
	if e.Kind == agent.EventUsage {
		s.mu.Lock()
		s.last = e.Usage
		s.mu.Unlock()
	}
	s.Sink.Event(e)
}

// inContext is how many tokens the last model call held: its input and
// its reply, which the next call carries.
func (s *usageSink) inContext() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last.InputTokens + s.last.OutputTokens
}

// promptUsage is a turn's tokens as the prompt response carries them; nil
// when the provider reported none.
func promptUsage(u llm.Usage) *acpsdk.Usage {
	if u.IsZero() {
		return nil
	}
	out := &acpsdk.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if out.TotalTokens == 0 {
		out.TotalTokens = u.InputTokens + u.OutputTokens
	}
	if u.CacheReadTokens > 0 {
		out.CachedReadTokens = &u.CacheReadTokens
	}
	if u.CacheWriteTokens > 0 {
		out.CachedWriteTokens = &u.CacheWriteTokens
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = &u.ReasoningTokens
	}
	return out
}

// reportUsage sends the editor a usage_update after a turn: how much of
// the model's context window the conversation fills, and what the
// session cost so far when hermes knows the model's prices.
func (s *Server) reportUsage(ctx context.Context, u *updater, sessionID, model string, sink *usageSink) {
	used := sink.inContext()
	if used == 0 {
		return
	}
	size, _ := llm.ContextWindow(model)
	up := &acpsdk.SessionUsageUpdate{SessionUpdate: "usage_update", Used: used, Size: size}
	if sess, err := s.opt.Store.Get(ctx, sessionID); err == nil && sess.CostUSD > 0 {
		up.Cost = &acpsdk.Cost{Amount: sess.CostUSD, Currency: "USD"}
	}
	u.send(acpsdk.SessionUpdate{UsageUpdate: up})
}
