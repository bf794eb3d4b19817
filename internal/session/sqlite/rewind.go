package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

// Rewind removes a session's messages after message afterID and lowers
// its counts by what went, in one transaction. The delete triggers take
// the removed messages out of the full-text indexes (those not yet
// indexed are in neither, and ids only grow, so none is indexed later).
func (s *Store) Rewind(ctx context.Context, sessionID string, afterID int64) (int, error) {
	removed := 0
	err := s.writeTx(ctx, "sqlite: rewind session "+sessionID, func(tx *sql.Tx) error {
		var calls int
		err := tx.QueryRowContext(ctx, `
SELECT count(*), coalesce(sum(CASE WHEN tool_calls IS NULL THEN 0 ELSE json_array_length(tool_calls) END), 0)
FROM messages WHERE session_id = ? AND id > ?`, sessionID, afterID).Scan(&removed, &calls)
		if err != nil {
			return fmt.Errorf("count messages: %w", err)
		}
		res, err := tx.ExecContext(ctx, `
UPDATE sessions SET message_count = max(message_count - ?, 0), tool_call_count = max(tool_call_count - ?, 0)
WHERE id = ?`, removed, calls, sessionID)
		if err != nil {
			return fmt.Errorf("update counts: %w", err)
		}
		if n, err := rowsAffected(res); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		if removed == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ? AND id > ?`, sessionID, afterID); err != nil {
			return fmt.Errorf("delete messages: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return removed, nil
}
