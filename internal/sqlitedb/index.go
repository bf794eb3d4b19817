package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
)

// IndexMessages adds the messages stored since the last call to the two
// full-text indexes, in tx, and returns how many it added. The session
// store calls it when enough messages have gathered and before it
// searches, so indexing costs one FTS5 segment per batch instead of one
// per commit, and a search never misses a message. Messages a process
// stored before it died are indexed by the next call, from any process.
//
// A message is in the trigram index when its writer flagged it as CJK,
// or, written without the flag, when its text holds CJK characters (see
// schema 5).
func IndexMessages(ctx context.Context, tx *sql.Tx) (int64, error) {
	var upto, last int64
	err := tx.QueryRowContext(ctx, `SELECT `+indexedUpto+`, (SELECT coalesce(max(id), 0) FROM messages)`).Scan(&upto, &last)
	if err != nil {
		return 0, fmt.Errorf("index messages: read the indexed id: %w", err)
	}
	if last <= upto {
		return 0, nil
	}
	steps := []string{
		`INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
		SELECT id, content, tool_name, tool_calls FROM messages WHERE id > ? AND id <= ? ORDER BY id`,
		`INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
		SELECT id, content || '  ', tool_name, tool_calls || '  ' FROM messages
		WHERE id > ? AND id <= ? AND CASE WHEN cjk IS NULL THEN ` + cjkCond("messages") + ` ELSE cjk END ORDER BY id`,
	}
	for _, q := range steps {
		if _, err := tx.ExecContext(ctx, q, upto, last); err != nil {
			return 0, fmt.Errorf("index messages %d-%d: %w", upto+1, last, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE state_meta SET value = ? WHERE key = 'fts_indexed_upto'`, last); err != nil {
		return 0, fmt.Errorf("index messages: record the indexed id: %w", err)
	}
	return last - upto, nil
}

// MessagesUnindexed reports whether messages are stored that
// IndexMessages has not yet added, read through q without a write lock.
func MessagesUnindexed(ctx context.Context, q *sql.DB) (bool, error) {
	var behind bool
	err := q.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM messages) > `+indexedUpto).Scan(&behind)
	if err != nil {
		return false, fmt.Errorf("read the indexed id: %w", err)
	}
	return behind, nil
}
