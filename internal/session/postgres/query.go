package postgres

import (
	"strings"
	"unicode"
)

// term is one thing a query looks for: a word, a quoted phrase, or a
// word's beginning (typed with a trailing *).
type term struct {
	text   string
	prefix bool
}

// parsedQuery is a query as alternatives (split by OR), each a list of
// terms all of which must match.
type parsedQuery struct {
	groups [][]term
	// cjk says the query holds CJK text, which the word index does not
	// split into words, so it is searched as substrings.
	cjk bool
}

// parseQuery reads what the user typed. It never fails: quotes make
// phrases (an unclosed one runs to the end), OR between terms makes
// alternatives, AND and NOT are dropped, and the punctuation of other
// search syntaxes (-, +, ^, parentheses, braces, *) is stripped from the
// ends of words. Text PostgreSQL cannot take (NUL, invalid UTF-8) is
// dropped.
func parseQuery(q string) parsedQuery {
	q = strings.ReplaceAll(strings.ToValidUTF8(q, ""), "\x00", " ")
	var pq parsedQuery
	var group []term
	flush := func() {
		if len(group) > 0 {
			pq.groups = append(pq.groups, group)
		}
		group = nil
	}
	for _, tok := range tokens(q) {
		if !tok.quoted {
			switch tok.text {
			case "OR":
				flush()
				continue
			case "AND", "NOT":
				continue
			}
		}
		t := term{text: tok.text}
		if !tok.quoted {
			t.prefix = strings.HasSuffix(strings.TrimRight(t.text, "()^{}+-\""), "*")
			t.text = strings.Trim(t.text, "()^{}+-*\"")
		}
		t.text = strings.Join(strings.Fields(t.text), " ")
		if t.text == "" {
			continue
		}
		pq.cjk = pq.cjk || hasCJK(t.text)
		group = append(group, t)
	}
	flush()
	return pq
}

// token is a piece of a query: a quoted phrase or a run of non-space.
type token struct {
	text   string
	quoted bool
}

// tokens splits q into words and quoted phrases.
func tokens(q string) []token {
	var out []token
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			if end < 0 {
				out = append(out, token{text: q[1:], quoted: true})
				break
			}
			out = append(out, token{text: q[1 : 1+end], quoted: true})
			q = q[end+2:]
			continue
		}
		end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(q)
		}
		out = append(out, token{text: q[:end]})
		q = q[end:]
	}
	return out
}

// hasCJK reports whether s holds Chinese, Japanese or Korean characters.
func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// terms lists every term of every alternative once.
func (pq parsedQuery) terms() []term {
	var out []term
	seen := map[term]bool{}
	for _, g := range pq.groups {
		for _, t := range g {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}
