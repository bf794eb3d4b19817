package kb

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A query is never handed to FTS5 as written: FTS5 syntax errors on
// stray quotes, "*", "-", "AND", "NEAR(" and more, and a model writes all
// of those. The query is cut into words (runs of letters and digits) and
// CJK runs, and each becomes a quoted FTS5 string; the alternatives are
// joined by OR, so BM25 ranks a passage by how many of the question's
// words it holds and how rare they are, rather than missing every
// passage that lacks one of them.

// maxTerms bounds the terms one query looks up, so a pasted paragraph
// does not turn into hundreds of index lookups.
const maxTerms = 32

// parsed is a query cut into what each index can look up.
type parsed struct {
	words []string // for the unicode61 index
	cjk   []string // runs of CJK characters, for the trigram index
}

// parse cuts q into words and CJK runs. It never fails; a query with
// neither is empty.
func parse(q string) parsed {
	var p parsed
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if s != "" && !seen[s] && len(p.words)+len(p.cjk) < maxTerms {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	var word, run strings.Builder
	flush := func() {
		add(&p.words, strings.ToLower(word.String()))
		add(&p.cjk, run.String())
		word.Reset()
		run.Reset()
	}
	for _, r := range q {
		switch {
		case isCJK(r) && (unicode.IsLetter(r) || unicode.IsNumber(r)):
			if word.Len() > 0 {
				add(&p.words, strings.ToLower(word.String()))
				word.Reset()
			}
			run.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if run.Len() > 0 {
				add(&p.cjk, run.String())
				run.Reset()
			}
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return p
}

// wordMatch is the unicode61 index expression: the words, quoted, OR'ed.
func (p parsed) wordMatch() string {
	quoted := make([]string, len(p.words))
	for i, w := range p.words {
		quoted[i] = quoteFTS(w)
	}
	return strings.Join(quoted, " OR ")
}

// trigramMatch is the trigram index expression for the CJK runs: every
// three-character window of a run, OR'ed, so a passage holding more of
// the question's phrases ranks higher; a run of one or two characters,
// which has no trigram, stands for the indexed trigrams it begins
// (vocab lists them, up to a bound).
func (p parsed) trigramMatch(ctx context.Context, vocab func(ctx context.Context, prefix string) ([]string, error)) (string, error) {
	var terms []string
	for _, run := range p.cjk {
		rs := []rune(run)
		if len(rs) >= 3 {
			for i := 0; i+3 <= len(rs) && len(terms) < 4*maxTerms; i++ {
				terms = append(terms, quoteFTS(string(rs[i:i+3])))
			}
			continue
		}
		grams, err := vocab(ctx, run)
		if err != nil {
			return "", err
		}
		for _, g := range grams {
			terms = append(terms, quoteFTS(g))
		}
	}
	return strings.Join(terms, " OR "), nil
}

// quoteFTS makes s one FTS5 string (a phrase), whatever it contains.
func quoteFTS(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// isCJK reports whether r is in the ranges the trigram index holds
// (cjkGlob in internal/sqlitedb/schema_sessions.go).
func isCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x30ff, // CJK punctuation, hiragana, katakana
		r >= 0x3400 && r <= 0x4dbf, // Han extension A
		r >= 0x4e00 && r <= 0x9fff, // Han
		r >= 0xac00 && r <= 0xd7af, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // Han compatibility
		r >= 0xff00 && r <= 0xffef: // full-width forms
		return true
	}
	return false
}

// trigramsStarting lists up to maxExpand indexed trigrams that begin
// with prefix.
func (k *KB) trigramsStarting(ctx context.Context, prefix string) ([]string, error) {
	const maxExpand = 64
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT term FROM kb_chunks_fts_trigram_vocab WHERE term >= ? AND term < ? ORDER BY doc DESC LIMIT ?`,
		prefix, prefix+string(utf8.MaxRune), maxExpand)
	if err != nil {
		return nil, fmt.Errorf("trigrams starting %q: %w", prefix, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("trigrams starting %q: %w", prefix, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
