package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/session"
)

// DayCost is what the sessions started on one day (UTC) with one model
// cost, for the dashboard's charts.
type DayCost struct {
	Day     time.Time
	Model   string
	CostUSD float64
	Tokens  int64
}

// dayMicros is a day in the microseconds the timestamps are kept in.
const dayMicros = int64(24 * time.Hour / time.Microsecond)

// Costs sums the cost and tokens of the sessions started at or after
// since, per day (UTC) and model, oldest day first. A session counts on
// the day it started, whenever its later turns ran.
func (s *Store) Costs(ctx context.Context, since time.Time) ([]DayCost, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT started_at / ? AS day, COALESCE(model, ''),
SUM(estimated_cost_usd), SUM(input_tokens + output_tokens)
FROM sessions WHERE started_at >= ? GROUP BY day, COALESCE(model, '') ORDER BY day, 2`, dayMicros, toMicros(since))
	if err != nil {
		return nil, fmt.Errorf("sqlite: costs since %s: %w", since.Format(time.DateOnly), err)
	}
	defer rows.Close()
	var out []DayCost
	for rows.Next() {
		var c DayCost
		var day int64
		if err := rows.Scan(&day, &c.Model, &c.CostUSD, &c.Tokens); err != nil {
			return nil, fmt.Errorf("sqlite: costs: %w", err)
		}
		c.Day = fromMicros(day * dayMicros)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Running lists the sessions whose lease is held at now: those a turn
// is running in, in this process or another one on the same state.db.
func (s *Store) Running(ctx context.Context, now time.Time) ([]RunningTurn, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT session_id, holder, expires_at FROM session_leases
WHERE expires_at > ? ORDER BY session_id`, toMicros(now))
	if err != nil {
		return nil, fmt.Errorf("sqlite: running turns: %w", err)
	}
	defer rows.Close()
	var out []RunningTurn
	for rows.Next() {
		var r RunningTurn
		var until int64
		if err := rows.Scan(&r.SessionID, &r.Holder, &until); err != nil {
			return nil, fmt.Errorf("sqlite: running turns: %w", err)
		}
		r.Until = fromMicros(until)
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunningTurn is a session a turn is running in, and the process (host
// and pid) running it.
type RunningTurn struct {
	SessionID string
	Holder    string
	Until     time.Time
}

// LastMessages returns the newest n messages of a session, in order:
// what a page showing the latest turns needs of a session of any length.
func (s *Store) LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT * FROM (SELECT `+messageCols+` FROM messages
WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, sessionID, max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("sqlite: last messages of session %s: %w", sessionID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: last messages of session %s: %w", sessionID, err)
	}
	return msgs, nil
}
