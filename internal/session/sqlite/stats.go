package sqlite

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

// Stats sums the sessions table. Message and tool-call totals come from
// the per-session counts, which Append keeps equal to the rows, so Stats
// never scans the messages.
func (s *Store) Stats(ctx context.Context) (session.Stats, error) {
	st := session.Stats{BySource: map[string]int64{}}
	rows, err := s.read.QueryContext(ctx, `
SELECT source, count(*), sum(message_count), sum(tool_call_count),
	sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
	sum(cache_write_tokens), sum(reasoning_tokens), total(estimated_cost_usd)
FROM sessions GROUP BY source`)
	if err != nil {
		return st, fmt.Errorf("sqlite: stats: %w", err)
	}
	st, err = session.ScanStats(rows)
	if err != nil {
		return st, fmt.Errorf("sqlite: stats: %w", err)
	}
	return st, nil
}
