package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/session"
)

// sessionCols is the column list every session query selects, in the
// order scanSession reads.
const sessionCols = `id, source, title, model, parent_session_id, started_at, ended_at,
	end_reason, cwd, message_count, tool_call_count, input_tokens, output_tokens,
	cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, agent, user_id, tenant`

// idAttempts is how many generated ids Create tries before giving up:
// ids carry only six random hex digits per second, so a burst of
// sessions (an import, many cron jobs at once) can draw one twice.
const idAttempts = 5

// Create stores a new session, filling in an empty ID and StartedAt. A
// ParentID must name an existing session.
func (s *Store) Create(ctx context.Context, sess *session.Session) error {
	started := sess.StartedAt
	if started.IsZero() {
		started = s.now()
	}
	started = stamp(started)
	var ended sql.NullInt64
	if !sess.EndedAt.IsZero() {
		ended = sql.NullInt64{Int64: toMicros(sess.EndedAt), Valid: true}
	}
	var id string
	what := "sqlite: create session"
	if sess.ID != "" {
		what += " " + sess.ID
	}
	// A stateless API request or a cron run creates a session every
	// time: its statements are prepared once (see statements.query).
	stmts, err := s.stmts.queries(ctx, sessionExistsQuery, sessionInsert)
	if err != nil {
		return err
	}
	exists := sessionTaken(stmts[0])
	err = s.writeTx(ctx, what, func(tx *sql.Tx) error {
		if sess.ParentID != "" {
			if ok, err := exists(ctx, tx, sess.ParentID); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("parent session %s: %w", sess.ParentID, session.ErrNotFound)
			}
		}
		for attempt := 1; ; attempt++ {
			id = sess.ID
			if id == "" {
				id = s.newID()
			}
			taken, err := exists(ctx, tx, id)
			if err != nil {
				return err
			}
			if !taken {
				break
			}
			if sess.ID != "" || attempt == idAttempts {
				return fmt.Errorf("session id %s already exists", id)
			}
		}
		_, err := tx.StmtContext(ctx, stmts[1]).ExecContext(ctx,
			id, sess.Source, nullString(sess.Title), nullString(sess.Model), nullString(sess.ParentID),
			toMicros(started), ended, nullString(sess.EndReason), nullString(sess.Cwd),
			sess.MessageCount, sess.ToolCallCount, sess.InputTokens, sess.OutputTokens,
			sess.CacheReadTokens, sess.CacheWriteTokens, sess.ReasoningTokens, sess.CostUSD, nullString(sess.Agent),
			nullString(sess.User), nullString(sess.Tenant))
		return err
	})
	if err != nil {
		return err
	}
	sess.ID, sess.StartedAt = id, started
	if ended.Valid {
		sess.EndedAt = fromMicros(ended.Int64)
	}
	return nil
}

// The statements of Create.
const (
	sessionExistsQuery = `SELECT 1 FROM sessions WHERE id = ?`
	sessionInsert      = `INSERT INTO sessions (` + sessionCols + `)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// sessionTaken returns a function reporting whether a session id is
// taken, with stmt (sessionExistsQuery) run in the caller's transaction.
func sessionTaken(stmt *sql.Stmt) func(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	return func(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
		var one int
		err := tx.StmtContext(ctx, stmt).QueryRowContext(ctx, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("look up session %s: %w", id, err)
		}
		return true, nil
	}
}

// Get returns one session, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*session.Session, error) {
	row := s.read.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id)
	sess, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: session %s: %w", id, session.ErrNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: session %s: %w", id, err)
	}
	return sess, nil
}

// Latest returns the most recently started session, of source when
// source is not empty, or ErrNotFound.
func (s *Store) Latest(ctx context.Context, source string) (*session.Session, error) {
	list, err := s.List(ctx, session.ListOptions{Source: source, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("sqlite: latest session of source %q: %w", source, session.ErrNotFound)
	}
	return &list[0], nil
}

// List returns sessions, most recently started first (ties broken by id,
// which starts with the time too).
func (s *Store) List(ctx context.Context, opt session.ListOptions) ([]session.Session, error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = 20
	}
	q := `SELECT ` + sessionCols + ` FROM sessions`
	var where []string
	args := []any{}
	if opt.Source != "" {
		where = append(where, `source = ?`)
		args = append(args, opt.Source)
	}
	if opt.ParentID != "" {
		where = append(where, `parent_session_id = ?`)
		args = append(args, opt.ParentID)
	}
	if opt.User != "" {
		where = append(where, `user_id = ?`)
		args = append(args, opt.User)
	}
	if opt.Tenant != "" {
		where = append(where, `tenant = ?`)
		args = append(args, opt.Tenant)
	}
	if opt.Owner {
		where = append(where, `user_id IS NULL`)
	}
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, limit, max(opt.Offset, 0))
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	defer rows.Close()
	var list []session.Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list sessions: %w", err)
		}
		list = append(list, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	return list, nil
}

// scanSession reads one row selected with sessionCols.
func scanSession(row interface{ Scan(...any) error }) (*session.Session, error) {
	var (
		sess                                                      session.Session
		title, model, parent, endReason, cwd, agent, user, tenant sql.NullString
		started                                                   int64
		ended                                                     sql.NullInt64
	)
	err := row.Scan(&sess.ID, &sess.Source, &title, &model, &parent, &started, &ended,
		&endReason, &cwd, &sess.MessageCount, &sess.ToolCallCount, &sess.InputTokens,
		&sess.OutputTokens, &sess.CacheReadTokens, &sess.CacheWriteTokens,
		&sess.ReasoningTokens, &sess.CostUSD, &agent, &user, &tenant)
	if err != nil {
		return nil, err
	}
	sess.Title, sess.Model, sess.ParentID = title.String, model.String, parent.String
	sess.EndReason, sess.Cwd, sess.Agent = endReason.String, cwd.String, agent.String
	sess.User, sess.Tenant = user.String, tenant.String
	sess.StartedAt = fromMicros(started)
	if ended.Valid {
		sess.EndedAt = fromMicros(ended.Int64)
	}
	return &sess, nil
}
