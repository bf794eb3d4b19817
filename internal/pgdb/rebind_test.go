package pgdb

import (
	"strings"
	"testing"
)

// TestRebind: placeholders become $1, $2, ... in order; a ? that is text
// (a literal, a quoted identifier, a comment, a dollar-quoted body) stays.
func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`INSERT INTO t (a, b) VALUES (?, ?) RETURNING id`, `INSERT INTO t (a, b) VALUES ($1, $2) RETURNING id`},
		{`SELECT '?', 'it''s ?', ? FROM t`, `SELECT '?', 'it''s ?', $1 FROM t`},
		{`SELECT "odd?col" FROM t WHERE x = ?`, `SELECT "odd?col" FROM t WHERE x = $1`},
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{`SELECT /* ? */ ?`, `SELECT /* ? */ $1`},
		{`DO $$ BEGIN PERFORM '?'; END $$; SELECT ?`, `DO $$ BEGIN PERFORM '?'; END $$; SELECT $1`},
		{`SELECT $tag$ ? $tag$, ?`, `SELECT $tag$ ? $tag$, $1`},
		{`SELECT $1, $2`, `SELECT $1, $2`},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
		{`SELECT 中文, ?`, `SELECT 中文, $1`},
		{`SELECT ?1, ?2, ?1`, `SELECT $1, $2, $1`},
		{`WHERE a = ?12 AND b = ?`, `WHERE a = $12 AND b = $1`},
	} {
		if got := Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedact: a DSN's password never survives Redact, in either form.
func TestRedact(t *testing.T) {
	for _, dsn := range []string{
		"postgres://hermes:hunter2@db:5432/hermes?sslmode=disable",
		"postgres://hermes@db/hermes?password=hunter2",
		"host=db user=hermes password=hunter2 dbname=hermes",
		"host=db password='hunter2 x' dbname=hermes",
	} {
		got := Redact(dsn)
		if strings.Contains(got, "hunter2") {
			t.Errorf("Redact(%q) = %q: the password is still there", dsn, got)
		}
		if !strings.Contains(got, "hermes") {
			t.Errorf("Redact(%q) = %q: the rest is gone", dsn, got)
		}
	}
}
