package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// AddUsage adds one model call's usage to a session's totals and to the
// day's usage of its user, tenant and model.
func (s *Store) AddUsage(ctx context.Context, sessionID string, u session.Usage) error {
	sessionID = text(sessionID)
	return s.tx(ctx, "add usage to session "+sessionID, func(tx *sql.Tx) error {
		if err := addToSession(ctx, tx, sessionID, 0, 0, u); err != nil {
			return err
		}
		return s.addDaily(ctx, tx, sessionID, u)
	})
}

// addDaily adds u to today's usage row of the session, inside tx. A
// call that used nothing is not counted, as in session/sqlite.
func (s *Store) addDaily(ctx context.Context, tx *sql.Tx, sessionID string, u session.Usage) error {
	if u.InputTokens == 0 && u.OutputTokens == 0 && u.CostUSD == 0 {
		return nil
	}
	day := s.now().UTC().Format(time.DateOnly)
	_, err := tx.ExecContext(ctx, `
INSERT INTO usage_daily (day, user_id, tenant, model, calls, input_tokens, output_tokens, cost_usd)
SELECT $1, user_id, tenant, model, 1, $2, $3, $4 FROM sessions WHERE id = $5
ON CONFLICT (day, user_id, tenant, model) DO UPDATE SET
	calls = usage_daily.calls + 1, input_tokens = usage_daily.input_tokens + excluded.input_tokens,
	output_tokens = usage_daily.output_tokens + excluded.output_tokens,
	cost_usd = usage_daily.cost_usd + excluded.cost_usd`, day, u.InputTokens, u.OutputTokens, u.CostUSD, sessionID)
	if err != nil {
		return fmt.Errorf("add to the day's usage: %w", err)
	}
	return nil
}

// DailyUsage returns the usage rows matching q, by day then user,
// tenant and model.
func (s *Store) DailyUsage(ctx context.Context, q session.UsageQuery) ([]session.DailyUsage, error) {
	to := q.To
	if to == "" {
		to = "9999-12-31"
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT day, user_id, tenant, model, calls, input_tokens, output_tokens, cost_usd FROM usage_daily
WHERE day >= $1 AND day <= $2 AND ($3 = '' OR user_id = $3) AND ($4 = '' OR tenant = $4)
ORDER BY day, user_id, tenant, model`, text(q.From), text(to), text(q.User), text(q.Tenant))
	if err != nil {
		return nil, fmt.Errorf("postgres: daily usage: %w", err)
	}
	defer rows.Close()
	var out []session.DailyUsage
	for rows.Next() {
		var d session.DailyUsage
		if err := rows.Scan(&d.Day, &d.User, &d.Tenant, &d.Model, &d.Calls, &d.InputTokens, &d.OutputTokens, &d.CostUSD); err != nil {
			return nil, fmt.Errorf("postgres: daily usage: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: daily usage: %w", err)
	}
	return out, nil
}
