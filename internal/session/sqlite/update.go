package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

// AddUsage adds one model call's usage to a session's totals. The
// addition happens in SQL, so concurrent callers never lose an update.
func (s *Store) AddUsage(ctx context.Context, sessionID string, u session.Usage) error {
	return s.writeTx(ctx, "sqlite: add usage to session "+sessionID, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
UPDATE sessions SET
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
	reasoning_tokens = reasoning_tokens + ?, estimated_cost_usd = estimated_cost_usd + ?
WHERE id = ?`,
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens,
			u.ReasoningTokens, u.CostUSD, sessionID)
		if err != nil {
			return err
		}
		if n, err := rowsAffected(res); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		return s.addDaily(ctx, tx, sessionID, u)
	})
}

// SetTitle sets a session's title.
func (s *Store) SetTitle(ctx context.Context, sessionID, title string) error {
	return s.updateSession(ctx, "set title of session "+sessionID,
		`UPDATE sessions SET title = ? WHERE id = ?`, nullString(title), sessionID)
}

// SetSystemPrompt records the system prompt a session was started with.
func (s *Store) SetSystemPrompt(ctx context.Context, sessionID, prompt string) error {
	return s.updateSession(ctx, "set system prompt of session "+sessionID,
		`UPDATE sessions SET system_prompt = ? WHERE id = ?`, nullString(prompt), sessionID)
}

// SystemPrompt returns the system prompt recorded for a session, "" when
// none was, or ErrNotFound.
func (s *Store) SystemPrompt(ctx context.Context, sessionID string) (string, error) {
	var p sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT system_prompt FROM sessions WHERE id = ?`, sessionID).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("sqlite: system prompt of session %s: %w", sessionID, session.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("sqlite: system prompt of session %s: %w", sessionID, err)
	}
	return p.String, nil
}

// End marks a session ended now with a reason. Ending it again moves
// the end time and replaces the reason.
func (s *Store) End(ctx context.Context, sessionID, reason string) error {
	return s.updateSession(ctx, "end session "+sessionID,
		`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`,
		toMicros(s.now()), nullString(reason), sessionID)
}

// Delete removes a session and its messages; the index triggers remove
// the messages from both full-text indexes. Sessions continuing it keep
// their messages and become the roots of their lineages.
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	return s.writeTx(ctx, "sqlite: delete session "+sessionID, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, sessionID); err != nil {
			return fmt.Errorf("delete messages: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, sessionID)
		if err != nil {
			return fmt.Errorf("delete session row: %w", err)
		}
		if n, err := rowsAffected(res); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		return nil
	})
}

// updateSession runs one UPDATE of a sessions row in a write transaction
// and reports ErrNotFound when no row has the id.
func (s *Store) updateSession(ctx context.Context, what, query string, args ...any) error {
	stmt, err := s.stmts.query(ctx, query)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return s.writeTx(ctx, "sqlite: "+what, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
		if err != nil {
			return err
		}
		if n, err := rowsAffected(res); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		return nil
	})
}
