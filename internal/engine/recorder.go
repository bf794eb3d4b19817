package engine

import (
	"context"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// recorder stores a turn's messages in one session as the loop produces
// them.
type recorder struct {
	store     session.Store
	sessionID string
	now       func() time.Time
	prices    map[string]llm.Price
}

// Record appends msgs, and the usage of the model call that produced a
// reply among them, in one transaction.
func (r *recorder) Record(ctx context.Context, msgs []agent.Recorded) error {
	now := r.now()
	out := make([]*session.Message, len(msgs))
	var u session.Usage
	for i, m := range msgs {
		out[i] = &session.Message{SessionID: r.sessionID, Message: m.Message, FinishReason: m.FinishReason, CreatedAt: now}
		if m.Usage != nil {
			add(&u, r.usage(m.Usage.Model, m.Usage.Usage))
		}
	}
	return r.store.Record(ctx, r.sessionID, u, out...)
}

// Usage adds one model call's tokens to the session's totals.
func (r *recorder) Usage(ctx context.Context, model string, u llm.Usage) error {
	return r.store.AddUsage(ctx, r.sessionID, r.usage(model, u))
}

// usage is a call's usage as the store keeps it, with its estimated cost.
func (r *recorder) usage(model string, u llm.Usage) session.Usage {
	return session.Usage{
		InputTokens:      int64(u.InputTokens),
		OutputTokens:     int64(u.OutputTokens),
		CacheReadTokens:  int64(u.CacheReadTokens),
		CacheWriteTokens: int64(u.CacheWriteTokens),
		ReasoningTokens:  int64(u.ReasoningTokens),
		CostUSD:          r.cost(model, u),
	}
}

// add adds b to a.
func add(a *session.Usage, b session.Usage) {
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.CostUSD += b.CostUSD
}

// cost is the estimated price of a call, from the configured prices and
// else the built-in table; 0 when the model's price is not known.
func (r *recorder) cost(model string, u llm.Usage) float64 {
	p, ok := llm.PriceOf(model, r.prices)
	if !ok {
		return 0
	}
	return llm.Cost(p, u)
}
