// Package sqltext holds the few pieces of SQL text and string handling
// that the stores searching text (memory/facts, kb) need on both
// backends, where SQLite and PostgreSQL spell the same thing apart:
// finding a substring, escaping LIKE, and fitting Go strings into
// PostgreSQL's text, which refuses what SQLite stores as given.
package sqltext

import (
	"strings"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// Contains is the condition that text holds needle (both SQL
// expressions, typically a column and a ? placeholder), case-sensitive,
// in d's dialect: instr() in SQLite, strpos() in PostgreSQL, which has no
// instr and whose pg_trgm cannot serve a needle of one or two characters
// (a two-character Chinese word) anyway, so a scan it is on both.
func Contains(d sqldb.Dialect, text, needle string) string {
	if d == sqldb.Postgres {
		return "strpos(" + text + ", " + needle + ") > 0"
	}
	return "instr(" + text + ", " + needle + ") > 0"
}

// Clean is s as d can store it in a text column: on PostgreSQL, NUL
// bytes and invalid UTF-8, which documents and models produce and its
// text type refuses, become U+FFFD (as encoding/json does); SQLite keeps
// s as given. Text compared with stored text (a URI looked up) must be
// cleaned the same way.
func Clean(d sqldb.Dialect, s string) string {
	if d != sqldb.Postgres {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// EscapeLike makes s's LIKE wildcards and its escape character literal,
// for a pattern written with ESCAPE '\'.
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
