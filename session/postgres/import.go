package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/session"
)

// Import stores a session exactly as another store holds it: its id,
// times, counts, totals and system prompt, and its messages with their
// ids and times, in one transaction. hermes storage migrate moves
// state.db's sessions through it, so the rows PostgreSQL keeps (search
// text, JSON parts) are made by this store's own encoding rather than
// copied column by column from a different layout. A session already
// stored is left as it is and Import reports false, so a migration run
// again picks up where it stopped. The parent is linked when it is
// already stored; LinkParent links a child imported before its parent.
// The usage by day is not touched: it is copied as a table.
func (s *Store) Import(ctx context.Context, sess session.Session, systemPrompt string, msgs []session.Message) (bool, error) {
	rows := make([]messageRow, len(msgs))
	for i := range msgs {
		m := msgs[i]
		var err error
		if rows[i], err = encodeMessage(&m); err != nil {
			return false, fmt.Errorf("postgres: import session %s: message %d: %w", sess.ID, m.ID, err)
		}
	}
	var ended sql.NullInt64
	if !sess.EndedAt.IsZero() {
		ended = sql.NullInt64{Int64: toMicros(sess.EndedAt), Valid: true}
	}
	prompt := sql.NullString{String: text(systemPrompt), Valid: systemPrompt != ""}
	imported := false
	err := s.tx(ctx, "import session "+sess.ID, func(tx *sql.Tx) error {
		var id string
		err := tx.QueryRowContext(ctx, `
INSERT INTO sessions (id, source, title, model, parent_session_id, started_at, ended_at, end_reason,
	cwd, agent, user_id, tenant, system_prompt, message_count, tool_call_count, input_tokens,
	output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
VALUES ($1, $2, $3, $4, (SELECT id FROM sessions WHERE id = $5), $6, $7, $8, $9, $10, $11, $12, $13,
	$14, $15, $16, $17, $18, $19, $20, $21)
ON CONFLICT (id) DO NOTHING RETURNING id`,
			text(sess.ID), text(sess.Source), text(sess.Title), text(sess.Model), text(sess.ParentID),
			toMicros(sess.StartedAt), ended, text(sess.EndReason), text(sess.Cwd), text(sess.Agent),
			text(sess.User), text(sess.Tenant), prompt, sess.MessageCount, sess.ToolCallCount,
			sess.InputTokens, sess.OutputTokens, sess.CacheReadTokens, sess.CacheWriteTokens,
			sess.ReasoningTokens, sess.CostUSD).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // stored by an earlier run
		}
		if err != nil {
			return fmt.Errorf("insert the session: %w", err)
		}
		for i, r := range rows {
			if _, err := tx.ExecContext(ctx, `
INSERT INTO messages (id, session_id, role, parts, tool_calls, tool_call_id, tool_name, finish_reason,
	reasoning, reasoning_blocks, tokens, created_at, search_text)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				msgs[i].ID, id, r.role, r.parts, r.toolCalls, r.toolCallID, r.toolName, r.finishReason,
				r.reasoning, r.reasoningBlocks, r.tokens, r.createdAt, r.searchText); err != nil {
				return fmt.Errorf("insert message %d: %w", msgs[i].ID, err)
			}
		}
		imported = true
		return nil
	})
	return imported, err
}

// LinkParent sets the parent of session id, imported before its parent
// was.
func (s *Store) LinkParent(ctx context.Context, id, parent string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE sessions SET parent_session_id = $2 WHERE id = $1 AND parent_session_id IS NULL`,
		text(id), text(parent)); err != nil {
		return fmt.Errorf("postgres: link session %s to its parent %s: %w", id, parent, err)
	}
	return nil
}

// FinishImport moves the message id sequence past the largest id
// imported, so messages appended afterwards never collide with one.
func (s *Store) FinishImport(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('messages', 'id'),
	greatest((SELECT max(id) FROM messages), 1))`); err != nil {
		return fmt.Errorf("postgres: move the message ids past the imported ones: %w", err)
	}
	return nil
}
