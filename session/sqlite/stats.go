package sqlite

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/session"
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
	defer rows.Close()
	for rows.Next() {
		var (
			source                          string
			n, msgs, calls, in, out, cr, cw int64
			reasoning                       int64
			cost                            float64
		)
		if err := rows.Scan(&source, &n, &msgs, &calls, &in, &out, &cr, &cw, &reasoning, &cost); err != nil {
			return st, fmt.Errorf("sqlite: stats: %w", err)
		}
		st.BySource[source] = n
		st.Sessions += n
		st.Messages += msgs
		st.ToolCalls += calls
		st.InputTokens += in
		st.OutputTokens += out
		st.CacheReadTokens += cr
		st.CacheWriteTokens += cw
		st.ReasoningTokens += reasoning
		st.CostUSD += cost
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("sqlite: stats: %w", err)
	}
	return st, nil
}
