package sqlexec

import (
	"strings"
)

// code returns stmt with every comment blanked to spaces and every string
// literal and quoted identifier filled with NUL bytes, keeping byte
// offsets (a literal stays something, so "SELECT 'a'" does not end at
// SELECT). What is left is the SQL
// the database parses as code, so placeholders, semicolons and keywords
// can be looked for without being fooled by a '?' or a ';' inside a
// string. The rules follow the driver's dialect: MySQL strings take
// backslash escapes and # starts a comment; PostgreSQL has E'...' strings,
// $tag$...$tag$ quoting and nested block comments. An unterminated literal
// or comment blanks the rest of the text, as the database would refuse it
// anyway.
func code(stmt, driver string) string {
	b := []byte(stmt)
	n := len(b)
	fill := func(from, to int, with byte) {
		for k := from; k < to && k < n; k++ {
			b[k] = with
		}
	}
	blank := func(from, to int) { fill(from, to, ' ') }
	literal := func(from, to int) { fill(from, to, 0) }
	for i := 0; i < n; {
		c := b[i]
		switch {
		case c == '\'' || c == '"' || (c == '`' && driver != driverPostgres):
			backslash := driver == driverMySQL && c != '`'
			if driver == driverPostgres && c == '\'' && i > 0 && (b[i-1] == 'E' || b[i-1] == 'e') && (i < 2 || !isIdent(b[i-2])) {
				backslash = true
			}
			end := quoteEnd(b, i, c, backslash)
			literal(i, end)
			i = end
		case c == '-' && i+1 < n && b[i+1] == '-':
			end := lineEnd(b, i)
			blank(i, end)
			i = end
		case c == '#' && driver == driverMySQL:
			end := lineEnd(b, i)
			blank(i, end)
			i = end
		case c == '/' && i+1 < n && b[i+1] == '*':
			end := blockEnd(b, i, driver == driverPostgres)
			blank(i, end)
			i = end
		case c == '$' && driver == driverPostgres && (i == 0 || !isIdent(b[i-1])):
			tag, ok := dollarTag(b, i)
			if !ok {
				i++
				continue
			}
			end := strings.Index(string(b[i+len(tag):]), tag)
			if end < 0 {
				end = n
			} else {
				end = i + len(tag) + end + len(tag)
			}
			literal(i, end)
			i = end
		default:
			i++
		}
	}
	return string(b)
}

// quoteEnd returns the offset just past the literal opening at b[i] with
// quote q; a doubled quote is an escaped one, and so is a backslashed one
// when backslash is set.
func quoteEnd(b []byte, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(b); j++ {
		switch {
		case backslash && b[j] == '\\':
			j++
		case b[j] == q:
			if j+1 < len(b) && b[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(b)
}

// lineEnd returns the offset of the newline ending a -- or # comment.
func lineEnd(b []byte, i int) int {
	for j := i; j < len(b); j++ {
		if b[j] == '\n' {
			return j
		}
	}
	return len(b)
}

// blockEnd returns the offset just past the /* */ comment opening at b[i];
// PostgreSQL nests them.
func blockEnd(b []byte, i int, nested bool) int {
	depth := 0
	for j := i; j+1 < len(b); j++ {
		switch {
		case b[j] == '/' && b[j+1] == '*':
			if depth > 0 && !nested {
				continue
			}
			depth++
			j++
		case b[j] == '*' && b[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// dollarTag reports the $tag$ (or $$) opening a PostgreSQL dollar-quoted
// string at b[i]; $1 is a placeholder, not a tag.
func dollarTag(b []byte, i int) (string, bool) {
	for j := i + 1; j < len(b); j++ {
		switch {
		case b[j] == '$':
			return string(b[i : j+1]), true
		case j == i+1 && b[j] >= '0' && b[j] <= '9':
			return "", false
		case !isIdent(b[j]):
			return "", false
		}
	}
	return "", false
}

// isIdent reports whether c may appear in an unquoted identifier.
func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// words splits blanked code into upper-cased words, dropping punctuation;
// "x.y" gives X and Y.
func words(code string) []string {
	return strings.FieldsFunc(strings.ToUpper(code), func(r rune) bool {
		return r > 0x7f || !isIdent(byte(r)) || r == '$'
	})
}

// firstWord is the statement's leading keyword, upper-cased, skipping
// opening parentheses: "(SELECT 1)" starts with SELECT.
func firstWord(code string) string {
	w := words(code)
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

// hasWord reports whether the blanked code contains kw as a whole word.
func hasWord(code, kw string) bool {
	for _, w := range words(code) {
		if w == kw {
			return true
		}
	}
	return false
}

// moreThanOne reports whether a ';' is followed by more SQL: "SELECT 1;"
// is one statement, "SELECT 1; DROP TABLE t" two.
func moreThanOne(code string) bool {
	i := strings.IndexByte(code, ';')
	if i < 0 {
		return false
	}
	return strings.Trim(code[i:], "; \t\r\n") != ""
}

// trimStatement drops trailing semicolons and space, which some drivers
// would take as an empty second statement.
func trimStatement(stmt, code string) string {
	end := len(strings.TrimRight(code, "; \t\r\n"))
	return strings.TrimSpace(stmt[:end])
}
