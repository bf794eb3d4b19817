package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// messageColumns are the columns scanMessages reads, in its order.
const messageColumns = `id, session_id, role, parts, tool_calls, tool_call_id, tool_name, finish_reason,
	reasoning, reasoning_blocks, tokens, created_at`

// Append adds messages to a session in one transaction.
func (s *Store) Append(ctx context.Context, sessionID string, msgs ...*session.Message) error {
	return s.Record(ctx, sessionID, session.Usage{}, msgs...)
}

// Record appends msgs and adds u to the session's totals and the day's
// usage in one transaction. The transaction first updates the session's
// row, which locks it: appends to one session run one after the other,
// so each append's ids follow the previous one's and are not interleaved
// with another append's.
func (s *Store) Record(ctx context.Context, sessionID string, u session.Usage, msgs ...*session.Message) error {
	sessionID = text(sessionID)
	if len(msgs) == 0 {
		if u == (session.Usage{}) {
			return nil
		}
		return s.AddUsage(ctx, sessionID, u)
	}
	now := stamp(s.now())
	rows := make([]messageRow, len(msgs))
	calls := 0
	for i, m := range msgs {
		if m == nil {
			return fmt.Errorf("postgres: append to session %s: message %d is nil", sessionID, i)
		}
		saved := m.CreatedAt
		m.CreatedAt = now
		if !saved.IsZero() {
			m.CreatedAt = stamp(saved)
		}
		var err error
		rows[i], err = encodeMessage(m)
		m.CreatedAt = saved
		if err != nil {
			return fmt.Errorf("postgres: append to session %s: message %d: %w", sessionID, i, err)
		}
		calls += len(m.ToolCalls)
	}
	ids := make([]int64, len(msgs))
	err := s.tx(ctx, "append to session "+sessionID, func(tx *sql.Tx) error {
		if err := addToSession(ctx, tx, sessionID, len(msgs), calls, u); err != nil {
			return err
		}
		for i, r := range rows {
			err := tx.QueryRowContext(ctx, `
INSERT INTO messages (session_id, role, parts, tool_calls, tool_call_id, tool_name, finish_reason,
	reasoning, reasoning_blocks, tokens, created_at, search_text)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
				sessionID, r.role, r.parts, r.toolCalls, r.toolCallID, r.toolName, r.finishReason,
				r.reasoning, r.reasoningBlocks, r.tokens, r.createdAt, r.searchText).Scan(&ids[i])
			if err != nil {
				return fmt.Errorf("insert message %d: %w", i, err)
			}
		}
		return s.addDaily(ctx, tx, sessionID, u)
	})
	if err != nil {
		return err
	}
	for i, m := range msgs {
		m.ID, m.SessionID, m.CreatedAt = ids[i], sessionID, fromMicros(rows[i].createdAt)
	}
	return nil
}

// addToSession adds n messages with calls tool calls and u to the
// session's counts and totals; an unknown session is
// session.ErrNotFound.
func addToSession(ctx context.Context, tx *sql.Tx, sessionID string, n, calls int, u session.Usage) error {
	res, err := tx.ExecContext(ctx, `
UPDATE sessions SET message_count = message_count + $2, tool_call_count = tool_call_count + $3,
	input_tokens = input_tokens + $4, output_tokens = output_tokens + $5,
	cache_read_tokens = cache_read_tokens + $6, cache_write_tokens = cache_write_tokens + $7,
	reasoning_tokens = reasoning_tokens + $8, cost_usd = cost_usd + $9
WHERE id = $1`, sessionID, n, calls, u.InputTokens, u.OutputTokens, u.CacheReadTokens,
		u.CacheWriteTokens, u.ReasoningTokens, u.CostUSD)
	if err != nil {
		return fmt.Errorf("update counts: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("update counts: %w", err)
	} else if n == 0 {
		return session.ErrNotFound
	}
	return nil
}

// Messages returns a session's messages in order.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	sessionID = text(sessionID)
	rows, err := s.db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE session_id = $1 ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages of session %s: %w", sessionID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages of session %s: %w", sessionID, err)
	}
	if len(msgs) == 0 {
		if _, err := s.Get(ctx, sessionID); err != nil {
			return nil, fmt.Errorf("postgres: messages of session %s: %w", sessionID, session.ErrNotFound)
		}
	}
	return msgs, nil
}

// maxAround bounds Around's n, which callers pass as "all".
const maxAround = 1 << 30

// Around returns up to n messages before and n after messageID in its
// session, the message itself included.
func (s *Store) Around(ctx context.Context, messageID int64, n int) ([]session.Message, error) {
	var sessionID string
	err := s.db.QueryRowContext(ctx, `SELECT session_id FROM messages WHERE id = $1`, messageID).Scan(&sessionID)
	if errors.Is(err, sql.ErrNoRows) {
		err = session.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: messages around %d: %w", messageID, err)
	}
	n = min(max(n, 0), maxAround) // n+1 must not overflow LIMIT
	rows, err := s.db.QueryContext(ctx, `
(SELECT `+messageColumns+` FROM messages WHERE session_id = $1 AND id <= $2 ORDER BY id DESC LIMIT $3)
UNION ALL
(SELECT `+messageColumns+` FROM messages WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT $4)`,
		sessionID, messageID, n+1, n)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages around %d: %w", messageID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages around %d: %w", messageID, err)
	}
	slices.SortFunc(msgs, func(a, b session.Message) int { return int(a.ID - b.ID) })
	return msgs, nil
}

// scanMessages reads and closes rows of messageColumns.
func scanMessages(rows *sql.Rows) ([]session.Message, error) {
	defer rows.Close()
	var out []session.Message
	for rows.Next() {
		var (
			id        int64
			sessionID string
			r         messageRow
		)
		if err := rows.Scan(&id, &sessionID, &r.role, &r.parts, &r.toolCalls, &r.toolCallID, &r.toolName,
			&r.finishReason, &r.reasoning, &r.reasoningBlocks, &r.tokens, &r.createdAt); err != nil {
			return nil, err
		}
		m, err := r.decode(id, sessionID)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Rewind removes the session's messages after afterID and lowers its
// counts to match, in one transaction that holds the session's row.
func (s *Store) Rewind(ctx context.Context, sessionID string, afterID int64) (int, error) {
	sessionID = text(sessionID)
	var removed, calls int
	err := s.tx(ctx, "rewind session "+sessionID, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`, sessionID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return session.ErrNotFound
		}
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, `
WITH gone AS (DELETE FROM messages WHERE session_id = $1 AND id > $2 RETURNING tool_calls)
SELECT count(*), coalesce(sum(json_array_length(tool_calls::json)), 0) FROM gone`, sessionID, afterID).Scan(&removed, &calls)
		if err != nil {
			return fmt.Errorf("delete messages after %d: %w", afterID, err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET message_count = message_count - $2,
	tool_call_count = tool_call_count - $3 WHERE id = $1`, sessionID, removed, calls)
		return err
	})
	if err != nil {
		return 0, err
	}
	return removed, nil
}

// MessagesAfter returns a session's messages after message afterID, in
// order: what a process resuming a session another one has been writing
// to still has to read.
func (s *Store) MessagesAfter(ctx context.Context, sessionID string, afterID int64) ([]session.Message, error) {
	msgs, err := s.queryMessages(ctx, `SELECT `+messageColumns+` FROM messages WHERE session_id = $1 AND id > $2 ORDER BY id`,
		text(sessionID), afterID)
	if err != nil {
		return nil, fmt.Errorf("postgres: messages of session %s after %d: %w", sessionID, afterID, err)
	}
	return msgs, nil
}

// LastMessages returns the newest n messages of a session, in order.
func (s *Store) LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error) {
	msgs, err := s.queryMessages(ctx, `SELECT * FROM (SELECT `+messageColumns+` FROM messages
WHERE session_id = $1 ORDER BY id DESC LIMIT $2) AS last ORDER BY id`, text(sessionID), max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: last messages of session %s: %w", sessionID, err)
	}
	return msgs, nil
}

// Running lists the sessions whose lease is held at now: those a turn
// is running in, on any replica.
func (s *Store) Running(ctx context.Context, now time.Time) ([]session.RunningTurn, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, holder, expires_at FROM session_leases
WHERE expires_at > $1 ORDER BY session_id`, toMicros(now))
	if err != nil {
		return nil, fmt.Errorf("postgres: running turns: %w", err)
	}
	out, err := session.ScanRunning(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: running turns: %w", err)
	}
	return out, nil
}

// queryMessages runs a query of messageColumns.
func (s *Store) queryMessages(ctx context.Context, q string, args ...any) ([]session.Message, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows)
}
