package facts

import (
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/internal/lazy"
)

// A query is never handed to FTS5 as typed: quotes, "*", "-", "NEAR(",
// "AND" and friends are FTS5 syntax, and a stray one is a syntax error.
// terms reads the query into words and CJK bigrams of its own; the
// word index receives each word as a quoted string (quoteFTS), so
// nothing typed can change the expression's shape.

// maxTerms bounds the terms of one query, so a pasted log does not turn
// into hundreds of index lookups.
const maxTerms = 32

// term is one thing a fact may contain.
type term struct {
	text   string // lower case
	prefix bool   // a word stem: match words that start with it
	cjk    bool   // CJK text, found as a substring of CJK facts
}

// parseTerms splits q into search terms. Latin-script words (letters and
// digits between anything else) become words: lower-cased, stop words
// dropped, stemmed lightly and matched as prefixes when four letters or
// more remain. Runs of CJK characters, which have no spaces between
// words, become their overlapping two-character pieces, so 部署到生产环境
// looks for 部署, 署到, 到生, 生产, 产环 and 环境; a lone CJK character is
// kept only when minCJK is 1. Terms repeat at most once.
func parseTerms(q string, minCJK int) []term {
	var terms []term
	seen := map[term]bool{}
	add := func(t term) {
		if len(terms) < maxTerms && !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case isCJK(r) && isWordRune(r):
			j := i
			for j < len(rs) && isCJK(rs[j]) && isWordRune(rs[j]) {
				j++
			}
			run := rs[i:j]
			if len(run) == 1 && minCJK <= 1 {
				add(term{text: string(run), cjk: true})
			}
			for k := 0; k+1 < len(run); k++ {
				// Recall (minCJK 2) leaves out the pieces holding a
				// function character: 的, 了 and 我 make pieces any
				// Chinese text has, which match every CJK fact a
				// little and cost a scan each.
				if minCJK >= 2 && (strings.ContainsRune(cjkStop, run[k]) || strings.ContainsRune(cjkStop, run[k+1])) {
					continue
				}
				add(term{text: string(run[k : k+2]), cjk: true})
			}
			i = j
		case isWordRune(r):
			j := i
			for j < len(rs) && isWordRune(rs[j]) && !isCJK(rs[j]) {
				j++
			}
			if t, ok := wordTerm(strings.ToLower(string(rs[i:j]))); ok {
				add(t)
			}
			i = j
		default:
			i++
		}
	}
	return terms
}

// cjkStop are the Chinese function characters (particles, pronouns,
// measure words, the commonest verbs) whose two-character pieces recall
// leaves out: in 帮我把每天的订单数据汇总一下, 帮我, 我把, 把每, 天的, 的订, 一下 say
// nothing of what a fact is about; 每天, 订单, 数据, 汇总 do.
const cjkStop = "的了是在我你他她它们这那个一下要把给和就都也还吗呢吧啊很有没不到说让用被着过从对为以之与及或而"

// wordTerm makes w a term, or reports false for a word too short or too
// common to tell facts apart.
func wordTerm(w string) (term, bool) {
	if len([]rune(w)) < 2 || stopWords.Get()[w] {
		return term{}, false
	}
	stem := w
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w)-len(suf) >= 4 && strings.HasSuffix(w, suf) && !strings.HasSuffix(w, "ss") {
			stem = strings.TrimSuffix(w, suf)
			break
		}
	}
	return term{text: stem, prefix: len([]rune(stem)) >= 4}, true
}

// quoteFTS is t as an FTS5 expression: one quoted string, a prefix
// query when t is a stem.
func quoteFTS(t term) string {
	q := `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	if t.prefix {
		q += "*"
	}
	return q
}

// quoteTSQuery is t as a PostgreSQL tsquery: one quoted lexeme, a prefix
// match when t is a stem. Terms hold only letters and digits, and the
// quotes keep anything else literal all the same.
func quoteTSQuery(t term) string {
	q := "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(t.text) + "'"
	if t.prefix {
		q += ":*"
	}
	return q
}

// isWordRune reports whether r is a letter or digit, what both the index
// and the CJK scan look for.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// hasCJK reports whether s has a CJK character.
func hasCJK(s string) bool { return strings.IndexFunc(s, isCJK) >= 0 }

// isCJK covers Han ideographs (with extension A and compatibility
// ideographs), kana, Hangul and CJK or full-width punctuation: the same
// ranges session/sqlite uses.
func isCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x30ff,
		r >= 0x3400 && r <= 0x4dbf,
		r >= 0x4e00 && r <= 0x9fff,
		r >= 0xac00 && r <= 0xd7af,
		r >= 0xf900 && r <= 0xfaff,
		r >= 0xff00 && r <= 0xffef:
		return true
	}
	return false
}

// stopWords are English words too common to say what a message is about,
// plus the words every fact uses ("user", "prefers"), which would
// otherwise tie any message that has them to every fact. The set is
// built on first use.
var stopWords = lazy.Value[map[string]bool]{New: func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about above after again all also am an and any are as at be because been
before being below between both but by can could did do does doing done down
during each else few for from further get got had has have having he her here
hers him his how i if in into is it its itself just let like me more most my
no nor not now of off on once only or other our ours out over own please same
she should so some such than that the their them then there these they this
those through to too under until up very want wants was we were what when
where which while who whom why will with would you your yours yourself
user users prefer prefers preferred tell know make need needs use uses used
thing things something anything way ok okay yes hi hello thanks thank`) {
		m[w] = true
	}
	return m
}}
