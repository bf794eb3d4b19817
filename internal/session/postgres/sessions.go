package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/session"
)

// sessionColumns are the columns scanSession reads, in its order.
const sessionColumns = `id, source, title, model, coalesce(parent_session_id, ''), started_at,
	coalesce(ended_at, 0), end_reason, cwd, agent, user_id, tenant, message_count, tool_call_count,
	input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd`

// Create stores a new session. A ParentID that names no session is
// session.ErrNotFound; an id already taken is an error naming it.
func (s *Store) Create(ctx context.Context, sess *session.Session) error {
	if sess.ID == "" {
		sess.ID = s.newID()
	}
	for _, f := range []*string{&sess.ID, &sess.Source, &sess.Title, &sess.Model, &sess.ParentID,
		&sess.EndReason, &sess.Cwd, &sess.Agent, &sess.User, &sess.Tenant} {
		*f = text(*f)
	}
	if sess.StartedAt.IsZero() {
		sess.StartedAt = s.now()
	}
	sess.StartedAt = stamp(sess.StartedAt)
	var ended sql.NullInt64
	if !sess.EndedAt.IsZero() {
		sess.EndedAt = stamp(sess.EndedAt)
		ended = sql.NullInt64{Int64: toMicros(sess.EndedAt), Valid: true}
	}
	parent := sql.NullString{String: sess.ParentID, Valid: sess.ParentID != ""}
	_, err := s.db.ExecContext(ctx, `
INSERT INTO sessions (id, source, title, model, parent_session_id, started_at, ended_at, end_reason,
	cwd, agent, user_id, tenant)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		sess.ID, sess.Source, sess.Title, sess.Model, parent, toMicros(sess.StartedAt), ended,
		sess.EndReason, sess.Cwd, sess.Agent, sess.User, sess.Tenant)
	switch pgdb.Code(err) {
	case "":
	case pgdb.CodeForeignKeyViolation:
		return fmt.Errorf("postgres: create session %s: parent session %q: %w", sess.ID, sess.ParentID, session.ErrNotFound)
	case pgdb.CodeUniqueViolation:
		return fmt.Errorf("postgres: create session %s: a session with this id already exists", sess.ID)
	}
	if err != nil {
		return fmt.Errorf("postgres: create session %s: %w", sess.ID, err)
	}
	return nil
}

// Get returns one session, or session.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*session.Session, error) {
	id = text(id)
	sess, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("postgres: get session %s: %w", id, err)
	}
	return sess, nil
}

// Latest returns the most recently started session, of source when it
// is not empty.
func (s *Store) Latest(ctx context.Context, source string) (*session.Session, error) {
	source = text(source)
	sess, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE $1 = '' OR source = $1 ORDER BY started_at DESC, id DESC LIMIT 1`, source))
	if err != nil {
		return nil, fmt.Errorf("postgres: latest session of source %q: %w", source, err)
	}
	return sess, nil
}

// List returns sessions matching opt, most recently started first.
func (s *Store) List(ctx context.Context, opt session.ListOptions) ([]session.Session, error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE ($1 = '' OR source = $1) AND ($2 = '' OR parent_session_id = $2)
	AND ($3 = '' OR user_id = $3) AND ($4 = '' OR tenant = $4) AND (NOT $5 OR user_id = '')
ORDER BY started_at DESC, id DESC LIMIT $6 OFFSET $7`,
		text(opt.Source), text(opt.ParentID), text(opt.User), text(opt.Tenant), opt.Owner, limit, max(opt.Offset, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: list sessions: %w", err)
	}
	defer rows.Close()
	var out []session.Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list sessions: %w", err)
		}
		out = append(out, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list sessions: %w", err)
	}
	return out, nil
}

// scanSession reads the sessionColumns of one row; no row is
// session.ErrNotFound.
func scanSession(row interface{ Scan(...any) error }) (*session.Session, error) {
	var (
		sess           session.Session
		started, ended int64
	)
	err := row.Scan(&sess.ID, &sess.Source, &sess.Title, &sess.Model, &sess.ParentID, &started,
		&ended, &sess.EndReason, &sess.Cwd, &sess.Agent, &sess.User, &sess.Tenant,
		&sess.MessageCount, &sess.ToolCallCount, &sess.InputTokens, &sess.OutputTokens,
		&sess.CacheReadTokens, &sess.CacheWriteTokens, &sess.ReasoningTokens, &sess.CostUSD)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, session.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sess.StartedAt = fromMicros(started)
	if ended != 0 {
		sess.EndedAt = fromMicros(ended)
	}
	return &sess, nil
}

// update runs a one-row UPDATE of session id; no row is
// session.ErrNotFound.
func (s *Store) update(ctx context.Context, what, id, query string, args ...any) error {
	res, err := s.db.ExecContext(ctx, query, append([]any{text(id)}, args...)...)
	if err != nil {
		return fmt.Errorf("postgres: %s of session %s: %w", what, id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("postgres: %s of session %s: %w", what, id, err)
	} else if n == 0 {
		return fmt.Errorf("postgres: %s of session %s: %w", what, id, session.ErrNotFound)
	}
	return nil
}

// SetTitle sets a session's title.
func (s *Store) SetTitle(ctx context.Context, sessionID, title string) error {
	return s.update(ctx, "set title", sessionID, `UPDATE sessions SET title = $2 WHERE id = $1`, text(title))
}

// SetSystemPrompt records the system prompt the session started with.
func (s *Store) SetSystemPrompt(ctx context.Context, sessionID, prompt string) error {
	return s.update(ctx, "set system prompt", sessionID, `UPDATE sessions SET system_prompt = $2 WHERE id = $1`, text(prompt))
}

// SystemPrompt returns the session's system prompt, "" when none was
// recorded.
func (s *Store) SystemPrompt(ctx context.Context, sessionID string) (string, error) {
	sessionID = text(sessionID)
	var p sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT system_prompt FROM sessions WHERE id = $1`, sessionID).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		err = session.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("postgres: system prompt of session %s: %w", sessionID, err)
	}
	return p.String, nil
}

// End marks a session ended now with reason.
func (s *Store) End(ctx context.Context, sessionID, reason string) error {
	return s.update(ctx, "end", sessionID, `UPDATE sessions SET ended_at = $2, end_reason = $3 WHERE id = $1`,
		toMicros(s.now()), text(reason))
}

// Delete removes a session with its messages and lease; sessions that
// continued it keep their messages and lose their parent link.
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	return s.update(ctx, "delete", sessionID, `DELETE FROM sessions WHERE id = $1`)
}

// Stats sums the sessions table; message and tool-call totals come from
// the per-session counts Append keeps equal to the rows.
func (s *Store) Stats(ctx context.Context) (session.Stats, error) {
	st := session.Stats{BySource: map[string]int64{}}
	rows, err := s.db.QueryContext(ctx, `
SELECT source, count(*), sum(message_count), sum(tool_call_count), sum(input_tokens), sum(output_tokens),
	sum(cache_read_tokens), sum(cache_write_tokens), sum(reasoning_tokens), sum(cost_usd)
FROM sessions GROUP BY source`)
	if err != nil {
		return st, fmt.Errorf("postgres: stats: %w", err)
	}
	st, err = session.ScanStats(rows)
	if err != nil {
		return st, fmt.Errorf("postgres: stats: %w", err)
	}
	return st, nil
}
