package sqlite

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// A user's query is never handed to FTS5 as written: FTS5 syntax errors
// on stray quotes, "*", "-", "AND", "NEAR(" and more, and a model writes
// all of those. parseQuery reads it into a small structure of its own —
// words, "quoted phrases", a trailing * for a prefix, and OR between
// alternatives (plain AND is the default) — and the store builds FTS5
// expressions from that structure, quoting every term. Nothing the user
// types can make the expression fail to parse.

// Limits on what one query may ask for, so a pasted paragraph does not
// turn into hundreds of index lookups.
const (
	maxTerms  = 16
	maxGroups = 8
)

// term is one word or phrase that must appear.
type term struct {
	text   string
	prefix bool // the user ended it with "*": match words starting with it
}

// runes is the length of the term in characters.
func (t term) runes() int { return utf8.RuneCountInString(t.text) }

// group is a set of terms that must all appear in one message.
type group []term

// parsedQuery is a query as alternatives: a message matches when it
// matches any group.
type parsedQuery struct {
	groups []group
	cjk    bool // some term holds CJK text, so only the trigram index can find it
}

// parseQuery reads q. It never fails: characters that are neither letters
// nor digits only separate terms or sit inside them, and terms with no
// letter or digit at all are dropped, since no index can look them up.
func parseQuery(q string) parsedQuery {
	// Control characters (FTS5 takes NUL for the end of its input) become
	// spaces, broken UTF-8 becomes U+FFFD.
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, q)
	var pq parsedQuery
	var cur group
	nterms := 0
	flush := func() {
		if len(cur) > 0 && len(pq.groups) < maxGroups {
			pq.groups = append(pq.groups, cur)
		}
		cur = nil
	}
	for _, tok := range splitQuery(q) {
		if !tok.quoted {
			switch tok.text {
			case "OR", "|", "||":
				flush()
				continue
			case "AND", "&&":
				continue
			}
		}
		t := term{text: tok.text}
		if !tok.quoted {
			trimmed := strings.TrimRight(t.text, "*")
			t.prefix = trimmed != t.text
			t.text = trimmed
		}
		if !hasWordChar(t.text) || nterms == maxTerms {
			continue
		}
		nterms++
		cur = append(cur, t)
		pq.cjk = pq.cjk || hasCJK(t.text)
	}
	flush()
	return pq
}

// queryToken is a whitespace-separated word or a "quoted phrase".
type queryToken struct {
	text   string
	quoted bool
}

// splitQuery splits q on white space, keeping text between a pair of
// double quotes together. An unpaired quote is just a separator.
func splitQuery(q string) []queryToken {
	var toks []queryToken
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			if end := strings.IndexByte(q[1:], '"'); end >= 0 {
				if phrase := strings.TrimSpace(q[1 : 1+end]); phrase != "" {
					toks = append(toks, queryToken{text: phrase, quoted: true})
				}
				q = q[end+2:]
				continue
			}
			q = q[1:]
			continue
		}
		end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(q)
		}
		toks = append(toks, queryToken{text: q[:end]})
		q = q[end:]
	}
	return toks
}

// quoteFTS makes s one FTS5 string (a phrase), whatever it contains.
func quoteFTS(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// wordMatch is the unicode61 index expression for the whole query:
// groups joined by OR, terms of a group by AND, each term a quoted
// phrase, prefixes marked with "*" outside the quotes. With allPrefix
// every term is a prefix, the fallback for a word typed only in part.
func (pq parsedQuery) wordMatch(allPrefix bool) string {
	var b strings.Builder
	for i, g := range pq.groups {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		for j, t := range g {
			if j > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(quoteFTS(t.text))
			if t.prefix || allPrefix {
				b.WriteByte('*')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// likePattern is a LIKE pattern finding s anywhere, with LIKE's own
// wildcards in s escaped (ESCAPE '\').
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// hasWordChar reports whether s has a letter or digit, the characters
// both tokenizers index.
func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0
}

// hasCJK reports whether s has a CJK character (the ranges of the
// trigram index's cjkGlob, in internal/sqlitedb/schema_sessions.go). It
// runs on every message stored, so it skips what cannot start one: every
// CJK character takes three bytes in UTF-8, led by 0xE3 to 0xEF.
func hasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE3 || s[i] > 0xEF {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); isCJK(r) {
			return true
		}
	}
	return false
}

// isCJK reports whether r puts a message in the trigram index.
func isCJK(r rune) bool { return sqlitedb.IsCJK(r) }
