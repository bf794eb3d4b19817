package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// usageDailyUpsert adds one model call's usage to its day's row for the
// session's user, tenant and model.
const usageDailyUpsert = `
INSERT INTO usage_daily (day, user_id, tenant, model, calls, input_tokens, output_tokens, cost_usd)
SELECT ?, coalesce(user_id, ''), coalesce(tenant, ''), coalesce(model, ''), 1, ?, ?, ? FROM sessions WHERE id = ?
ON CONFLICT (day, user_id, tenant, model) DO UPDATE SET
	calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens,
	output_tokens = output_tokens + excluded.output_tokens, cost_usd = cost_usd + excluded.cost_usd`

// addDaily adds u to today's usage row of the session, inside tx.
func (s *Store) addDaily(ctx context.Context, tx *sql.Tx, sessionID string, u session.Usage) error {
	if u.InputTokens == 0 && u.OutputTokens == 0 && u.CostUSD == 0 {
		return nil
	}
	day := s.now().UTC().Format(time.DateOnly)
	if _, err := tx.ExecContext(ctx, usageDailyUpsert, day, u.InputTokens, u.OutputTokens, u.CostUSD, sessionID); err != nil {
		return fmt.Errorf("add to the day's usage: %w", err)
	}
	return nil
}

// DailyUsage returns the usage rows matching q, by day then user,
// tenant and model.
func (s *Store) DailyUsage(ctx context.Context, q session.UsageQuery) ([]session.DailyUsage, error) {
	from, to := q.From, q.To
	if to == "" {
		to = "9999-12-31"
	}
	rows, err := s.read.QueryContext(ctx, `
SELECT day, user_id, tenant, model, calls, input_tokens, output_tokens, cost_usd FROM usage_daily
WHERE day >= ? AND day <= ? AND (? = '' OR user_id = ?) AND (? = '' OR tenant = ?)
ORDER BY day, user_id, tenant, model`, from, to, q.User, q.User, q.Tenant, q.Tenant)
	if err != nil {
		return nil, fmt.Errorf("sqlite: daily usage: %w", err)
	}
	defer rows.Close()
	var out []session.DailyUsage
	for rows.Next() {
		var d session.DailyUsage
		if err := rows.Scan(&d.Day, &d.User, &d.Tenant, &d.Model, &d.Calls, &d.InputTokens, &d.OutputTokens, &d.CostUSD); err != nil {
			return nil, fmt.Errorf("sqlite: daily usage: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: daily usage: %w", err)
	}
	return out, nil
}
