package app

import (
	"context"
	"fmt"
)

// UsageReport is what /usage answers for a session, in every front: its
// tokens, how much of the input the provider's prompt cache served, and
// the estimated cost.
func (a *App) UsageReport(ctx context.Context, sessionID string) string {
	if sessionID == "" {
		return "No session yet: usage is counted from your first message."
	}
	s, err := a.Sessions.Get(ctx, sessionID)
	if err != nil {
		return "usage: " + err.Error()
	}
	cached := 0.0
	if s.InputTokens > 0 {
		cached = 100 * float64(s.CacheReadTokens) / float64(s.InputTokens)
	}
	return fmt.Sprintf("session %s\n  input    %d tokens (%d read from cache, %.0f%%; %d written to cache)\n  output   %d tokens (%d reasoning)\n  cost     $%.4f estimated",
		s.ID, s.InputTokens, s.CacheReadTokens, cached, s.CacheWriteTokens, s.OutputTokens, s.ReasoningTokens, s.CostUSD)
}
