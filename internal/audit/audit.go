// Package audit keeps the audit log in the state database (state.db, or
// PostgreSQL shared by replicas): who ran which tool, with which
// arguments (redacted), how it ended and what approved it, for every
// call of every turn, and answers queries over it.
package audit

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/tool"
)

// Entry is one call in the log.
type Entry struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	SessionID  string    `json:"session_id,omitempty"`
	User       string    `json:"user,omitempty"`
	Tenant     string    `json:"tenant,omitempty"`
	Source     string    `json:"source,omitempty"`
	Agent      string    `json:"agent,omitempty"`
	Tool       string    `json:"tool"`
	Args       string    `json:"args"`
	Status     string    `json:"status"`
	ErrorCode  string    `json:"error_code,omitempty"`
	Approval   string    `json:"approval,omitempty"`
	ApprovedBy string    `json:"approved_by,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	DurationMS int64     `json:"duration_ms"`
}

// Log is the audit log of one database. It is safe for concurrent use,
// by several replicas too: it only appends and deletes whole rows.
type Log struct {
	db    sqldb.DB
	clock clock.Clock
}

// New returns the audit log of db; a nil clock is the wall clock.
func New(db sqldb.DB, c clock.Clock) *Log { return &Log{db: db, clock: clock.OrReal(c)} }

// Record appends a call to the log: tool.Dispatcher's Audit.
func (l *Log) Record(ctx context.Context, c tool.Audited) error {
	inv, out := c.Invocation, c.Outcome
	return l.db.WriteTx(ctx, "audit "+c.Name, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
INSERT INTO audit_log (at, session_id, user_id, tenant, source, agent, tool, args, status, error_code, approval, approved_by, reason, duration_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			l.clock.Now().UnixMicro(), text(inv.SessionID), text(inv.User), text(inv.Tenant), text(inv.Source), text(inv.Agent),
			text(c.Name), text(c.Args), text(string(out.Result.Status)), text(string(out.Result.ErrorCode)),
			text(c.Approval), text(c.By), text(c.Reason), out.Duration.Milliseconds())
		if err != nil {
			return fmt.Errorf("audit: record %s: %w", c.Name, err)
		}
		return nil
	})
}

// text is s as a text column keeps it on both databases. A call's
// arguments and names come from a model and may hold NUL bytes or
// invalid UTF-8, which PostgreSQL's text refuses; each becomes U+FFFD, so
// the call is still logged, and logged alike on SQLite.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// Query filters the log. Zero fields do not filter; Limit 0 is 50.
type Query struct {
	User, Tenant, Tool, SessionID string
	// Approval keeps the calls decided so (person, denied, ...).
	Approval string
	Since    time.Time
	Limit    int
}

// Find returns the entries matching q, newest first.
func (l *Log) Find(ctx context.Context, q Query) ([]Entry, error) {
	var where []string
	var args []any
	for _, f := range []struct{ col, v string }{
		{"user_id", q.User}, {"tenant", q.Tenant}, {"tool", q.Tool}, {"session_id", q.SessionID}, {"approval", q.Approval},
	} {
		if f.v != "" {
			where, args = append(where, f.col+" = ?"), append(args, f.v)
		}
	}
	if !q.Since.IsZero() {
		where, args = append(where, "at >= ?"), append(args, q.Since.UnixMicro())
	}
	query := `SELECT id, at, session_id, user_id, tenant, source, agent, tool, args, status, error_code, approval, approved_by, reason, duration_ms FROM audit_log`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	rows, err := l.db.Reader().QueryContext(ctx, query+" ORDER BY id DESC LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("audit: query: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.SessionID, &e.User, &e.Tenant, &e.Source, &e.Agent, &e.Tool, &e.Args,
			&e.Status, &e.ErrorCode, &e.Approval, &e.ApprovedBy, &e.Reason, &e.DurationMS); err != nil {
			return nil, fmt.Errorf("audit: query: %w", err)
		}
		e.At = time.UnixMicro(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: query: %w", err)
	}
	return out, nil
}

// Prune deletes the entries older than before, in batches so that the
// writer is never held long, and returns how many went.
func (l *Log) Prune(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := l.db.WriteTx(ctx, "audit: prune", func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY id LIMIT 5000)`, before.UnixMicro())
			if err != nil {
				return fmt.Errorf("audit: prune: %w", err)
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < 5000 {
			return total, nil
		}
	}
}
