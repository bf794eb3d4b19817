package kb

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqlitedb"
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
		case sqlitedb.IsCJK(r) && (unicode.IsLetter(r) || unicode.IsNumber(r)):
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

// commonShare is the share of chunks above which a word counts as
// common: BM25 gives it almost no weight, yet an OR with it matches and
// scores most of the index (265 ms a query at 100,000 chunks, against
// milliseconds without it).
const commonShare = 0.10

// minPrune is the index size below which every word is kept: scoring all
// the matches of a small index is cheap.
const minPrune = 5000

// wordMatch is the unicode61 index expression: the words OR'ed, so BM25
// ranks a passage by how many of them it holds and how rare they are. In
// an index of at least minPrune chunks, words held by more than
// commonShare of them are dropped when some rarer word remains, and a
// query of common words only needs all of them (AND), which still
// narrows the matches. df gives a word's chunk count (0 also for a word
// the index stores in another form, such as without its accents, which
// is kept), and total the chunks.
func (p parsed) wordMatch(ctx context.Context, df func(ctx context.Context, word string) (int, error), total int) (string, error) {
	words, all, err := p.wordTerms(ctx, df, total)
	if err != nil {
		return "", err
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteFTS(w)
	}
	if all {
		return strings.Join(quoted, " AND "), nil
	}
	return strings.Join(quoted, " OR "), nil
}

// wordTerms is the words wordMatch looks up, and whether a chunk needs
// all of them (AND) rather than any (OR): the choice both backends make.
func (p parsed) wordTerms(ctx context.Context, df func(ctx context.Context, word string) (int, error), total int) ([]string, bool, error) {
	var rare, common []string
	for _, w := range p.words {
		if total < minPrune {
			rare = append(rare, w)
			continue
		}
		n, err := df(ctx, w)
		if err != nil {
			return nil, false, err
		}
		switch {
		case float64(n) > commonShare*float64(total):
			common = append(common, w)
		default:
			rare = append(rare, w)
		}
	}
	if len(rare) > 0 {
		return rare, false, nil
	}
	return common, len(common) > 0, nil
}

// wordChunks is how many chunks hold word, by the word index's
// vocabulary. A prefix of the word as FTS5 stores it (lower case,
// diacritics removed) is looked up as written.
func (k *KB) wordChunks(ctx context.Context, word string) (int, error) {
	var n int
	err := k.db.Reader().QueryRowContext(ctx, `SELECT coalesce(sum(doc), 0) FROM kb_chunks_fts_vocab WHERE term = ?`, word).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("look up %q: %w", word, err)
	}
	return n, nil
}

// trigramMatch is the trigram index expression for a query with CJK
// text, empty for one without: every three-character window of a CJK
// run and every word of three characters or more, OR'ed, so a passage
// holding more of the question's phrases ranks higher; a run of one or
// two characters, which has no trigram, stands for the indexed trigrams
// it begins (vocab lists them, up to a bound).
func (p parsed) trigramMatch(ctx context.Context, vocab func(ctx context.Context, prefix string) ([]string, error)) (string, error) {
	var terms []string
	for _, t := range p.trigramTerms() {
		if !t.prefix {
			terms = append(terms, quoteFTS(t.text))
			continue
		}
		grams, err := vocab(ctx, t.text)
		if err != nil {
			return "", err
		}
		for _, g := range grams {
			terms = append(terms, quoteFTS(g))
		}
	}
	return strings.Join(terms, " OR "), nil
}

// trigramTerm is a phrase the trigram index looks up, or with prefix
// set a CJK run of one or two characters, which stands for the indexed
// trigrams it begins.
type trigramTerm struct {
	text   string
	prefix bool
}

// trigramTerms is what trigramMatch looks up, none for a query without
// CJK text: words of three characters or more, every three-character
// window of a CJK run, and shorter runs as prefixes.
func (p parsed) trigramTerms() []trigramTerm {
	if len(p.cjk) == 0 {
		return nil
	}
	// Words beside CJK text are often glued to it ("项目alpha的负责人"),
	// where the word index sees one long token; as phrases of the
	// trigram index they are found inside it.
	var terms []trigramTerm
	for _, w := range p.words {
		if utf8.RuneCountInString(w) >= 3 {
			terms = append(terms, trigramTerm{text: w})
		}
	}
	for _, run := range p.cjk {
		rs := []rune(run)
		if len(rs) >= 3 {
			for i := 0; i+3 <= len(rs) && len(terms) < 4*maxTerms; i++ {
				terms = append(terms, trigramTerm{text: string(rs[i : i+3])})
			}
			continue
		}
		terms = append(terms, trigramTerm{text: run, prefix: true})
	}
	return terms
}

// quoteFTS makes s one FTS5 string (a phrase), whatever it contains.
func quoteFTS(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// trigramsStarting lists up to maxExpand indexed trigrams that begin
// with prefix.
func (k *KB) trigramsStarting(ctx context.Context, prefix string) ([]string, error) {
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
