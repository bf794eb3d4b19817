package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// messageCols is the column list every message query selects, in the
// order scanMessages reads.
const messageCols = `id, session_id, role, content, parts, tool_calls, tool_call_id,
	tool_name, finish_reason, reasoning, reasoning_blocks, token_count, timestamp`

// Append adds msgs to a session in one transaction and bumps the
// session's counts in the same transaction, so the counts always equal
// the rows. Messages without a CreatedAt get the store's clock. IDs,
// SessionID and the stored CreatedAt are written back only once the
// transaction has committed.
func (s *Store) Append(ctx context.Context, sessionID string, msgs ...*session.Message) error {
	return s.Record(ctx, sessionID, session.Usage{}, msgs...)
}

// Record appends msgs and adds u to the session's totals in one
// transaction: a model reply and the usage of the call that produced it
// cost one commit, not two.
func (s *Store) Record(ctx context.Context, sessionID string, u session.Usage, msgs ...*session.Message) error {
	if len(msgs) == 0 {
		if u == (session.Usage{}) {
			return nil
		}
		return s.AddUsage(ctx, sessionID, u)
	}
	rows := make([]messageRow, len(msgs))
	times := make([]time.Time, len(msgs))
	now := stamp(s.now())
	calls := 0
	for i, m := range msgs {
		if m == nil {
			return fmt.Errorf("sqlite: append to session %s: message %d is nil", sessionID, i)
		}
		times[i] = now
		if !m.CreatedAt.IsZero() {
			times[i] = stamp(m.CreatedAt)
		}
		var err error
		if rows[i], err = encodeMessage(m, times[i]); err != nil {
			return fmt.Errorf("sqlite: append to session %s: message %d: %w", sessionID, i, err)
		}
		calls += len(m.ToolCalls)
	}

	// Prepare the inserts before the transaction takes the one writer
	// connection: preparing on the pool needs that connection too.
	stmts := make([]*sql.Stmt, 0, len(rows)/maxInsertRows+1)
	for at := 0; at < len(rows); at += maxInsertRows {
		stmt, err := s.stmts.insert(ctx, min(maxInsertRows, len(rows)-at))
		if err != nil {
			return fmt.Errorf("sqlite: append to session %s: %w", sessionID, err)
		}
		stmts = append(stmts, stmt)
	}

	ids := make([]int64, len(msgs))
	indexing := false
	err := s.writeTx(ctx, "sqlite: append to session "+sessionID, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.stmts.bumpCounts).ExecContext(ctx, len(msgs), calls,
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, u.CostUSD, sessionID)
		if err != nil {
			return fmt.Errorf("update counts: %w", err)
		}
		if n, err := rowsAffected(res); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		for i, stmt := range stmts {
			at := i * maxInsertRows
			chunk := rows[at:min(at+maxInsertRows, len(rows))]
			if err := insertRows(ctx, tx.StmtContext(ctx, stmt), sessionID, chunk, ids[at:at+len(chunk)]); err != nil {
				return fmt.Errorf("insert messages %d-%d: %w", at, at+len(chunk)-1, err)
			}
		}
		if err := s.addDaily(ctx, tx, sessionID, u); err != nil {
			return err
		}
		indexing = s.batchDue(len(msgs))
		if indexing {
			if _, err := sqlitedb.IndexMessages(ctx, tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.appended(len(msgs), indexing)
	for i, m := range msgs {
		m.ID, m.SessionID, m.CreatedAt = ids[i], sessionID, times[i]
	}
	return nil
}

// insertRows inserts rows with stmt, an insert of len(rows) messages,
// and stores their ids, in order, in ids.
func insertRows(ctx context.Context, stmt *sql.Stmt, sessionID string, rows []messageRow, ids []int64) error {
	args := make([]any, 0, 13*len(rows))
	for i := range rows {
		r := &rows[i]
		args = append(args, sessionID, r.role, r.content, r.parts, r.toolCalls, r.toolCallID,
			r.toolName, r.finishReason, r.reasoning, r.reasoningBlocks, r.tokens, r.timestamp, r.cjk)
	}
	res, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer res.Close()
	n := 0
	for res.Next() {
		if n == len(ids) {
			return fmt.Errorf("insert returned more than %d ids", len(ids))
		}
		if err := res.Scan(&ids[n]); err != nil {
			return fmt.Errorf("read id: %w", err)
		}
		n++
	}
	if err := res.Err(); err != nil {
		return err
	}
	if n != len(ids) {
		return fmt.Errorf("insert returned %d ids for %d rows", n, len(ids))
	}
	// Rows get increasing ids in VALUES order (the write lock is held);
	// RETURNING need not list them in that order, so sort.
	slices.Sort(ids)
	return nil
}

// Messages returns a session's messages in order, or ErrNotFound when the
// session does not exist.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+messageCols+` FROM messages WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages of session %s: %w", sessionID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages of session %s: %w", sessionID, err)
	}
	if len(msgs) == 0 {
		if _, err := s.Get(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// Around returns the message with id messageID and up to n messages on
// each side of it in its session, in order.
func (s *Store) Around(ctx context.Context, messageID int64, n int) ([]session.Message, error) {
	n = max(n, 0)
	rows, err := s.read.QueryContext(ctx, `
WITH target AS (SELECT session_id FROM messages WHERE id = ?1)
SELECT * FROM (
	SELECT `+messageCols+` FROM messages
	WHERE session_id = (SELECT session_id FROM target) AND id < ?1
	ORDER BY id DESC LIMIT ?2)
UNION ALL
SELECT * FROM (
	SELECT `+messageCols+` FROM messages
	WHERE session_id = (SELECT session_id FROM target) AND id >= ?1
	ORDER BY id LIMIT ?2 + 1)
ORDER BY id`, messageID, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages around %d: %w", messageID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages around %d: %w", messageID, err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("sqlite: message %d: %w", messageID, session.ErrNotFound)
	}
	return msgs, nil
}

// scanMessages reads and closes rows selected with messageCols.
func scanMessages(rows *sql.Rows) ([]session.Message, error) {
	defer rows.Close()
	var msgs []session.Message
	for rows.Next() {
		var (
			r         messageRow
			id        int64
			sessionID string
		)
		if err := rows.Scan(&id, &sessionID, &r.role, &r.content, &r.parts, &r.toolCalls,
			&r.toolCallID, &r.toolName, &r.finishReason, &r.reasoning, &r.reasoningBlocks,
			&r.tokens, &r.timestamp); err != nil {
			return nil, fmt.Errorf("scan message: %w", err)
		}
		m, err := r.decode(id, sessionID)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	return msgs, nil
}

// maxInsertRows is the most messages one INSERT statement carries; larger
// appends use several statements in the same transaction.
//
// Why one statement for many rows: FTS5 writes its pending index data out
// as a new segment at every statement savepoint, and SQLite opens one for
// each statement that fires the index triggers. Inserting ten messages
// with ten statements therefore built ten tiny segments (and paid for
// merging them); one statement builds one. Appends of ten went from about
// 9,000 to 11,500 messages/s.
const maxInsertRows = 64

// messageInsertCols are the columns an insert sets, in argument order.
const messageInsertCols = `session_id, role, content, parts, tool_calls, tool_call_id, tool_name,
	finish_reason, reasoning, reasoning_blocks, token_count, timestamp, cjk`

// statements are the writer's hot statements, prepared once: preparing
// the message insert compiles the index triggers into it, which costs
// about as much as running it. With one writer connection a prepared
// statement serves every transaction (tx.StmtContext).
type statements struct {
	db         *sql.DB
	bumpCounts *sql.Stmt

	mu      sync.Mutex
	inserts map[int]*sql.Stmt    // by number of rows
	byQuery map[string]*sql.Stmt // the other write statements, by text
}

func prepare(ctx context.Context, db *sql.DB) (*statements, error) {
	st := &statements{db: db, inserts: map[int]*sql.Stmt{}, byQuery: map[string]*sql.Stmt{}}
	var err error
	if st.bumpCounts, err = db.PrepareContext(ctx, `
UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
	reasoning_tokens = reasoning_tokens + ?, estimated_cost_usd = estimated_cost_usd + ?
WHERE id = ?`); err != nil {
		return nil, fmt.Errorf("prepare count update: %w", err)
	}
	return st, nil
}

// insert returns the statement inserting n (1..maxInsertRows) messages
// and returning their ids.
func (st *statements) insert(ctx context.Context, n int) (*sql.Stmt, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if stmt := st.inserts[n]; stmt != nil {
		return stmt, nil
	}
	row := "(?" + strings.Repeat(", ?", strings.Count(messageInsertCols, ",")) + ")"
	q := `INSERT INTO messages (` + messageInsertCols + `) VALUES ` +
		strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + ` RETURNING id`
	stmt, err := st.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare insert of %d messages: %w", n, err)
	}
	st.inserts[n] = stmt
	return stmt, nil
}

func (st *statements) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	if st.bumpCounts != nil {
		errs = append(errs, st.bumpCounts.Close())
	}
	for _, s := range st.inserts {
		errs = append(errs, s.Close())
	}
	for _, s := range st.byQuery {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// MessagesAfter returns the messages of a session that come after the
// message afterID, in order: what a caller that has the first ones lacks.
func (s *Store) MessagesAfter(ctx context.Context, sessionID string, afterID int64) ([]session.Message, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+messageCols+` FROM messages WHERE session_id = ? AND id > ? ORDER BY id`, sessionID, afterID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages of session %s after %d: %w", sessionID, afterID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages of session %s after %d: %w", sessionID, afterID, err)
	}
	return msgs, nil
}
