package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// maxPerKind bounds how many problems of one kind a report lists; the
// last one listed says how many more there are.
const maxPerKind = 20

// Check looks for damage in db, either backend: for state.db SQLite's
// own quick_check and foreign_key_check; for both, that every schema is
// at the version this program knows, that every session's stored
// message_count is its number of messages, that no message belongs to a
// missing session, and that every tool result answers a call an earlier
// assistant message of its session made (a history a model would
// refuse). Problems are listed in the report and make the error
// ErrProblems; other errors mean the check could not run.
func Check(ctx context.Context, db sqldb.DB) (Report, error) {
	c := &checker{ctx: ctx, db: db.Reader()}
	var err error
	if c.r.Tables, err = tableCounts(ctx, db); err != nil {
		return c.r, err
	}
	steps := []func() error{c.versions, c.messageCounts, c.orphans, c.toolResults}
	if s, ok := db.(*sqlitedb.DB); ok {
		steps = append([]func() error{c.sqliteIntegrity, c.sqliteVersions(s)}, steps[1:]...)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return c.r, err
		}
	}
	if n := len(c.r.Problems); n > 0 {
		return c.r, fmt.Errorf("%w: %d in the %s database", ErrProblems, n, db.Dialect())
	}
	return c.r, nil
}

// checker gathers the problems of one Check.
type checker struct {
	ctx    context.Context
	db     *sql.DB
	r      Report
	counts map[string]int
}

// problem records a problem of kind, counting those past maxPerKind.
func (c *checker) problem(kind, format string, args ...any) {
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[kind]++
	switch n := c.counts[kind]; {
	case n <= maxPerKind:
		c.r.Problems = append(c.r.Problems, Problem{Kind: kind, Detail: fmt.Sprintf(format, args...)})
	case n == maxPerKind+1:
		c.r.Problems = append(c.r.Problems, Problem{Kind: kind, Detail: "more problems of this kind follow; fix these first"})
	}
}

// tableCounts lists the tables holding data, with their row counts.
func tableCounts(ctx context.Context, db sqldb.DB) ([]Table, error) {
	var names []string
	var err error
	if db.Dialect() == sqldb.SQLite {
		names, _, err = sourceTables(ctx, db.Reader())
	} else {
		var set map[string]bool
		set, err = destTables(ctx, db.Reader())
		for name := range set {
			names = append(names, name)
		}
		slices.Sort(names)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Table, len(names))
	for i, name := range names {
		out[i].Name = name
		if out[i].Source.Rows, err = countRows(ctx, db.Reader(), name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sqliteIntegrity runs SQLite's quick_check and foreign_key_check.
func (c *checker) sqliteIntegrity() error {
	rows, err := c.db.QueryContext(c.ctx, `PRAGMA quick_check`)
	if err != nil {
		return fmt.Errorf("storage: quick_check: %w", err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("storage: quick_check: %w", err)
		}
		if line != "ok" {
			c.problem("integrity", "%s", line)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storage: quick_check: %w", err)
	}
	rows, err = c.db.QueryContext(c.ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("storage: foreign_key_check: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("storage: foreign_key_check: %w", err)
		}
		c.problem("foreign_key", "%s row %d refers to a missing row of %s", table, rowid.Int64, parent)
	}
	return rows.Err()
}

// sqliteVersions compares state.db's schema versions with this
// program's.
func (c *checker) sqliteVersions(db *sqlitedb.DB) func() error {
	return func() error {
		vs, err := db.SchemaVersions(c.ctx)
		if err != nil {
			return fmt.Errorf("storage: schema versions: %w", err)
		}
		for _, v := range vs {
			if v.Have != v.Want {
				c.problem("schema_version", "schema %s is at version %d; this hermes knows %d", v.Name, v.Have, v.Want)
			}
		}
		return nil
	}
}

// versions compares PostgreSQL's schema_versions with this program's.
func (c *checker) versions() error {
	have := map[string]int{}
	err := scan(c.ctx, c.db, `SELECT name, max(version) FROM schema_versions GROUP BY name`, 2, func(v []any) error {
		n, _, err := convert(v[1], "bigint", true)
		if err != nil {
			return err
		}
		have[asString(v[0])] = int(n.(int64))
		return nil
	})
	if err != nil {
		return fmt.Errorf("storage: schema versions: %w", err)
	}
	for name, want := range pgdb.Versions() {
		if have[name] != want {
			c.problem("schema_version", "schema %s is at version %d; this hermes knows %d", name, have[name], want)
		}
	}
	return nil
}

// messageCounts finds sessions whose message_count is not their number
// of messages.
func (c *checker) messageCounts() error {
	return scan(c.ctx, c.db, `SELECT s.id, s.message_count, count(m.id) FROM sessions s
LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id, s.message_count HAVING s.message_count <> count(m.id)`, 3,
		func(v []any) error {
			c.problem("message_count", "session %s says it has %v messages but has %v", asString(v[0]), v[1], v[2])
			return nil
		})
}

// orphans finds messages of sessions that do not exist.
func (c *checker) orphans() error {
	return scan(c.ctx, c.db, `SELECT m.session_id, count(*) FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id) GROUP BY m.session_id`, 2,
		func(v []any) error {
			c.problem("orphan_messages", "%v messages belong to session %s, which does not exist", v[1], asString(v[0]))
			return nil
		})
}

// toolResults finds tool results whose call no earlier assistant
// message of the session made.
func (c *checker) toolResults() error {
	var session string
	calls := map[string]bool{}
	return scan(c.ctx, c.db, `SELECT session_id, id, role, tool_calls, tool_call_id FROM messages
WHERE role IN ('assistant', 'tool') ORDER BY session_id, id`, 5, func(v []any) error {
		if s := asString(v[0]); s != session {
			session = s
			clear(calls)
		}
		id, role, callID := v[1], asString(v[2]), asString(v[4])
		if role == "assistant" {
			var made []struct {
				ID string `json:"id"`
			}
			if js := asString(v[3]); js != "" {
				if err := json.Unmarshal([]byte(js), &made); err != nil {
					c.problem("tool_calls", "session %s message %v: tool_calls is not JSON: %v", session, id, err)
				}
			}
			for _, m := range made {
				calls[m.ID] = true
			}
			return nil
		}
		if !calls[callID] {
			c.problem("tool_result_without_call", "session %s message %v answers tool call %q, which no earlier assistant message of the session made",
				session, id, callID)
		}
		return nil
	})
}
