package session

import (
	"database/sql"
	"fmt"
	"time"
)

// The stores of both backends read a few results in the same shape;
// these read them once, so the two cannot drift apart.

// ScanStats reads, and closes, rows of (source, sessions, messages, tool
// calls, input, output, cache read, cache write and reasoning tokens,
// cost) per source into Stats.
func ScanStats(rows *sql.Rows) (Stats, error) {
	defer rows.Close()
	st := Stats{BySource: map[string]int64{}}
	for rows.Next() {
		var (
			source                                     string
			n, msgs, calls, in, out, cr, cw, reasoning int64
			cost                                       float64
		)
		if err := rows.Scan(&source, &n, &msgs, &calls, &in, &out, &cr, &cw, &reasoning, &cost); err != nil {
			return st, err
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
	return st, rows.Err()
}

// ScanRunning reads, and closes, rows of (session id, holder, lease end
// in microseconds since the Unix epoch).
func ScanRunning(rows *sql.Rows) ([]RunningTurn, error) {
	defer rows.Close()
	var out []RunningTurn
	for rows.Next() {
		var r RunningTurn
		var until int64
		if err := rows.Scan(&r.SessionID, &r.Holder, &until); err != nil {
			return nil, err
		}
		r.Until = time.UnixMicro(until).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetRoots reads, and closes, rows of (session id, ancestor id) ordered
// by session and then from the nearest ancestor to the farthest, and sets
// each hit's RootID to its farthest ancestor (itself when it has none).
func SetRoots(rows *sql.Rows, hits []Hit) error {
	defer rows.Close()
	roots := map[string]string{}
	for rows.Next() {
		var start, id string
		if err := rows.Scan(&start, &id); err != nil {
			return fmt.Errorf("read lineage roots: %w", err)
		}
		roots[start] = id // shallowest first, so the last one wins
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read lineage roots: %w", err)
	}
	for i := range hits {
		hits[i].RootID = roots[hits[i].SessionID]
		if hits[i].RootID == "" {
			hits[i].RootID = hits[i].SessionID
		}
	}
	return nil
}
