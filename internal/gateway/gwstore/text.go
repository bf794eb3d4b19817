package gwstore

import (
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// PostgreSQL's text holds neither NUL bytes nor invalid UTF-8, and what
// the gateway stores comes from outside: a mail's subject, Message-ID
// and sender are raw header bytes, a webhook's event id is whatever JSON
// string the sender chose (NUL included). Replacing such bytes, as the
// session store does with message text, would make two ids one: two
// events would dedupe as one, and one sender would pass for another
// paired one. So the store escapes them, reversibly: on PostgreSQL each
// NUL or byte that is not UTF-8 is written as U+FFFD followed by its two
// lowercase hex digits, and a U+FFFD of the string itself as U+FFFD
// followed by "u". Every string reads back as it was written, two
// strings never share a row, and a string with none of these is stored
// as it is. SQLite holds any string and is written as given.

// escapeMark starts an escape in a stored string.
const escapeMark = '\uFFFD'

// text is v as the store's database holds it: escaped on PostgreSQL.
func (s *Store) text(v string) string {
	if s.db.Dialect() != sqldb.Postgres || clean(v) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 8)
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == 0:
			b.WriteRune(escapeMark)
			b.WriteByte(hexDigits[v[i]>>4])
			b.WriteByte(hexDigits[v[i]&15])
		case r == escapeMark:
			b.WriteRune(escapeMark)
			b.WriteByte('u')
		default:
			b.WriteString(v[i : i+n])
		}
		i += n
	}
	return b.String()
}

// untext is the string the stored v was written from: text undone. A
// mark not followed by an escape is kept as it is.
func (s *Store) untext(v string) string {
	if s.db.Dialect() != sqldb.Postgres || !strings.ContainsRune(v, escapeMark) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	mark := string(escapeMark)
	for {
		i := strings.Index(v, mark)
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		v = v[i+len(mark):]
		switch {
		case strings.HasPrefix(v, "u"):
			b.WriteString(mark)
			v = v[1:]
		case len(v) >= 2 && isHex(v[0]) && isHex(v[1]):
			b.WriteByte(unhex(v[0])<<4 | unhex(v[1]))
			v = v[2:]
		default:
			b.WriteString(mark)
		}
	}
}

// clean reports whether PostgreSQL's text holds v as it is and v has no
// mark that untext would read as an escape.
func clean(v string) bool {
	return utf8.ValidString(v) && !strings.ContainsRune(v, 0) && !strings.ContainsRune(v, escapeMark)
}

const hexDigits = "0123456789abcdef"

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// asciiLower is v with ASCII letters in lower case and every other byte
// kept, as SQLite's lower() and PostgreSQL's under the C collation make
// it: a look-alike that Unicode folds to a letter (the Kelvin sign)
// stays what it is.
func asciiLower(v string) string {
	b := []byte(v)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// lowerSQL is the SQL expression of column in lower case as asciiLower
// makes it: PostgreSQL's lower() under its C.UTF-8 collation would also
// fold non-ASCII letters.
func (s *Store) lowerSQL(column string) string {
	if s.db.Dialect() == sqldb.Postgres {
		return `lower(` + column + ` COLLATE "C")`
	}
	return `lower(` + column + `)`
}

// forUpdate is the clause that locks the rows a SELECT in a write
// transaction read until it commits: PostgreSQL's READ COMMITTED lets
// another replica change them between the read and the write that
// follows; SQLite's one writer already excludes that and has no such
// clause.
func (s *Store) forUpdate() string {
	if s.db.Dialect() == sqldb.Postgres {
		return ` FOR UPDATE`
	}
	return ``
}
