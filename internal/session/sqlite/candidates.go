package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// candidateCols selects what a candidate holds, from messages m joined
// with sessions s; the text columns are cut to scoreBytes.
const candidateCols = `m.id, m.session_id, m.role, m.tool_name, m.timestamp, s.title,
	substr(m.content, 1, ?), substr(m.tool_calls, 1, ?)`

// matchCandidates returns the newest rankWindow messages matching an
// FTS5 expression on table and holding every term of like as a
// substring. The index drives: FTS5 yields matches in rowid order,
// newest first, and the LIMIT stops it. (A session filter never comes
// here: see sessionCandidates.)
func (s *Store) matchCandidates(ctx context.Context, table, match string, like []term, opt session.SearchOptions) ([]*candidate, error) {
	q := `SELECT ` + candidateCols + `
FROM ` + table + ` f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH ?`
	args := []any{scoreBytes, scoreBytes, match}
	for _, t := range like {
		q, args = addLike(q, args, t)
	}
	q, args = addFilters(q, args, opt)
	// Order by the index's own rowid: FTS5 then yields matches newest
	// first and stops at the limit, where ordering by m.id (the same
	// value, unknown to the planner) sorts every match first.
	q += ` ORDER BY f.rowid DESC LIMIT ?`
	args = append(args, rankWindow)
	return s.queryCandidates(ctx, q, args...)
}

// scanCandidates returns up to n of the newest messages holding every
// term of g as a substring, reading messages backwards by id: the LIMIT
// ends the scan early for a common term, and scanWindow bounds it for
// one found nowhere. A session filter scans just that session.
func (s *Store) scanCandidates(ctx context.Context, g group, opt session.SearchOptions, n int) ([]*candidate, error) {
	q := `SELECT ` + candidateCols + `
FROM messages m JOIN sessions s ON s.id = m.session_id
WHERE 1`
	args := []any{scoreBytes, scoreBytes}
	if opt.SessionID == "" {
		q += ` AND m.id > (SELECT coalesce(max(id), 0) FROM messages) - ?`
		args = append(args, scanWindow)
	}
	for _, t := range g {
		q, args = addLike(q, args, t)
	}
	q, args = addFilters(q, args, opt)
	q += ` ORDER BY m.id DESC LIMIT ?`
	args = append(args, n)
	return s.queryCandidates(ctx, q, args...)
}

// addLike appends a condition that t appears in one of the indexed
// columns of messages m. (instr() would skip LIKE's case folding but,
// measured, scans CJK text slower than LIKE's '%x%' fast path.)
func addLike(q string, args []any, t term) (string, []any) {
	p := likePattern(t.text)
	q += ` AND (m.content LIKE ? ESCAPE '\' OR m.tool_name LIKE ? ESCAPE '\' OR m.tool_calls LIKE ? ESCAPE '\')`
	return q, append(args, p, p, p)
}

// addFilters appends the SearchOptions filters to a query over messages m
// joined with sessions s.
func addFilters(q string, args []any, opt session.SearchOptions) (string, []any) {
	if opt.SessionID != "" {
		q += ` AND m.session_id = ?`
		args = append(args, opt.SessionID)
	}
	if opt.Source != "" {
		q += ` AND s.source = ?`
		args = append(args, opt.Source)
	}
	if opt.Role != "" {
		q += ` AND m.role = ?`
		args = append(args, string(opt.Role))
	}
	if opt.User != "" {
		q += ` AND s.user_id = ?`
		args = append(args, opt.User)
	}
	if opt.Tenant != "" {
		q += ` AND s.tenant = ?`
		args = append(args, opt.Tenant)
	}
	return q, args
}

// queryCandidates runs a query selecting candidateCols.
func (s *Store) queryCandidates(ctx context.Context, q string, args ...any) ([]*candidate, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find candidates: %w", err)
	}
	defer rows.Close()
	var cands []*candidate
	for rows.Next() {
		var (
			c               = new(candidate)
			role            string
			toolName, title sql.NullString
			content, calls  sql.NullString
			ts              int64
		)
		if err := rows.Scan(&c.MessageID, &c.SessionID, &role, &toolName, &ts, &title, &content, &calls); err != nil {
			return nil, fmt.Errorf("read candidates: %w", err)
		}
		c.Role, c.ToolName, c.SessionTitle = llm.Role(role), toolName.String, title.String
		c.CreatedAt = fromMicros(ts)
		c.content, c.toolName, c.toolCalls = content.String, toolName.String, calls.String
		cands = append(cands, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	return cands, nil
}
