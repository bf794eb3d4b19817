package kb

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqltext"
)

// On PostgreSQL there is no FTS5 to call bm25() on, so search scores
// BM25 itself, as FTS5 does (fts5_aux.c), over the same terms: the
// indexes (internal/pgdb/schema_kb.go) find the candidate chunks, each
// term is counted in each candidate's text and heading (a word by the
// tsvector's positions, a CJK phrase in the text itself), and Go scores
//
//	idf(t)    = ln((N - df + 0.5) / (df + 0.5)), at least 1e-6
//	score(c)  = Σ idf(t) · tf·(k1+1) / (tf + k1·(1 - b + b·len/avglen))
//
// with tf the term's count in the text plus half its count in the
// heading (FTS5's column weights 1.0 and 0.5), k1 1.2 and b 0.75. Scores
// and orders then match SQLite's, which ts_rank_cd's would not: it knows
// no document frequencies, so a common word would weigh as much as a
// rare one.
const (
	bm25K1        = 1.2
	bm25B         = 0.75
	headingWeight = 0.5
)

// rankPostgres is Rank on PostgreSQL.
func (b bm25Ranker) rankPostgres(ctx context.Context, q Query, n int) ([]Ranked, error) {
	p := parse(q.Text)
	if b.trigram {
		return b.k.pgTrigramRank(ctx, p, q, n)
	}
	return b.k.pgWordRank(ctx, p, q, n)
}

// candidate is a chunk a term may be in, with what scoring reads.
type candidate struct {
	id            int64
	text, heading string // lower case
	length        float64
	keep          bool // passes the query's filter
}

// pgWordRank ranks by BM25 over words, the word index's part: the
// chunks holding any of the words (all, for common words only) through
// search_words, each word's df counted by the same index.
func (k *KB) pgWordRank(ctx context.Context, p parsed, q Query, n int) ([]Ranked, error) {
	if len(p.words) == 0 {
		return nil, nil
	}
	r := k.db.Reader()
	var total int
	if err := r.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM kb_chunks`).Scan(&total); err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	dfs := map[string]int{}
	df := func(ctx context.Context, w string) (int, error) {
		if d, ok := dfs[w]; ok {
			return d, nil
		}
		var d int
		err := r.QueryRowContext(ctx, `SELECT count(*) FROM kb_chunks WHERE search_words @@ to_tsquery('simple', ?)`, quoteLexeme(w)).Scan(&d)
		if err != nil {
			return 0, fmt.Errorf("look up %q: %w", w, err)
		}
		dfs[w] = d
		return d, nil
	}
	words, all, err := p.wordTerms(ctx, df, total)
	if err != nil || len(words) == 0 {
		return nil, err
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteLexeme(w)
	}
	op := " | "
	if all {
		op = " & "
	}
	var nRows int
	var avg float64
	if err := r.QueryRowContext(ctx, `SELECT count(*), coalesce(avg(search_len), 0) FROM kb_chunks`).Scan(&nRows, &avg); err != nil {
		return nil, fmt.Errorf("measure the chunks: %w", err)
	}
	idf := map[string]float64{}
	lexemes := make([]any, len(words))
	for i, w := range words {
		d, err := df(ctx, w)
		if err != nil {
			return nil, err
		}
		idf[w], lexemes[i] = ftsIDF(nRows, d), w
	}
	// Each matching chunk's count of each word, in its text (weight A)
	// and its heading (B), read from the tsvector's positions rather
	// than the text: most of a short query's words are in most chunks.
	cond, args := q.filter(sqldb.Postgres)
	rows, err := r.QueryContext(ctx, `
SELECT c.id, c.search_len, t.lexeme,
	cardinality(array_positions(t.weights, 'A')), cardinality(array_positions(t.weights, 'B'))
FROM kb_chunks c JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
CROSS JOIN LATERAL unnest(c.search_words) t
WHERE c.search_words @@ to_tsquery('simple', ?)`+cond+` AND t.lexeme IN (?`+strings.Repeat(",?", len(words)-1)+`)`,
		append(append([]any{strings.Join(quoted, op)}, args...), lexemes...)...)
	if err != nil {
		return nil, fmt.Errorf("search the knowledge base: %w", err)
	}
	defer rows.Close()
	scores := map[int64]float64{}
	for rows.Next() {
		var (
			id               int64
			length           float64
			lexeme           string
			inText, inHeader int
		)
		if err := rows.Scan(&id, &length, &lexeme, &inText, &inHeader); err != nil {
			return nil, fmt.Errorf("search the knowledge base: %w", err)
		}
		scores[id] += bm25(idf[lexeme], float64(inText)+headingWeight*float64(inHeader), length, avg)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search the knowledge base: %w", err)
	}
	out := make([]Ranked, 0, len(scores))
	for id, sc := range scores {
		out = append(out, Ranked{Chunk: id, Score: sc})
	}
	return bestFirst(out, n), nil
}

// pgTrigramRank ranks by BM25 over the trigram index's part: chunks
// with CJK text holding any phrase of the query (the pg_trgm index
// serves those of three characters or more), or any of its one- or
// two-character CJK runs (found by strpos, as pg_trgm has no trigram for
// them). A short run stands for the trigrams beginning with it that the
// CJK chunks hold, the 64 held by most, as SQLite's vocabulary gives
// them. The candidates are read whatever the filter, since df counts
// every CJK chunk, as FTS5's does.
func (k *KB) pgTrigramRank(ctx context.Context, p parsed, q Query, n int) ([]Ranked, error) {
	tts := p.trigramTerms()
	if len(tts) == 0 {
		return nil, nil
	}
	cond, fargs := q.filter(sqldb.Postgres)
	var match []string
	var args []any
	for _, t := range tts {
		if t.prefix {
			match, args = append(match, `strpos(lower(c.text || ' ' || c.heading), ?) > 0`), append(args, strings.ToLower(t.text))
		} else {
			match, args = append(match, `(c.text || ' ' || c.heading) ILIKE ? ESCAPE '\'`), append(args, "%"+sqltext.EscapeLike(t.text)+"%")
		}
	}
	cands, err := k.pgCandidates(ctx, `char_length(c.text) + char_length(c.heading), (TRUE`+cond+`)`, fargs,
		`c.has_cjk AND (`+strings.Join(match, " OR ")+`)`, args)
	if err != nil {
		return nil, err
	}
	var nRows int
	var avg float64
	if err := k.db.Reader().QueryRowContext(ctx, `
SELECT count(*), coalesce(avg(char_length(text) + char_length(heading)), 0) FROM kb_chunks WHERE has_cjk`).Scan(&nRows, &avg); err != nil {
		return nil, fmt.Errorf("measure the CJK chunks: %w", err)
	}
	var texts []string
	for _, t := range tts {
		if t.prefix {
			texts = append(texts, candidateTrigrams(cands, strings.ToLower(t.text))...)
		} else {
			texts = append(texts, strings.ToLower(t.text))
		}
	}
	terms := make([]scoredTerm, len(texts))
	for i, t := range texts {
		df := 0
		for _, c := range cands {
			if strings.Contains(c.text, t) || strings.Contains(c.heading, t) {
				df++
			}
		}
		terms[i] = scoredTerm{text: t, idf: ftsIDF(nRows, df)}
	}
	return bm25Rank(cands, terms, countOverlapping, avg, n), nil
}

// pgCandidates reads the chunks matching where with their lower-cased
// text and heading, padded by two spaces as SQLite's trigram index pads
// them, and the columns extra selects: the chunk's length, then whether
// it passes the query's filter.
func (k *KB) pgCandidates(ctx context.Context, extra string, extraArgs []any, where string, whereArgs []any) ([]candidate, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT c.id, c.text, c.heading, `+extra+`
FROM kb_chunks c JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE `+where, append(slices.Clip(extraArgs), whereArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("search the knowledge base: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.text, &c.heading, &c.length, &c.keep); err != nil {
			return nil, fmt.Errorf("search the knowledge base: %w", err)
		}
		c.text, c.heading = strings.ToLower(c.text)+"  ", strings.ToLower(c.heading)+"  "
		out = append(out, c)
	}
	return out, rows.Err()
}

// scoredTerm is one term of a query with its inverse document frequency.
type scoredTerm struct {
	text string
	idf  float64
}

// ftsIDF is FTS5's inverse document frequency of a term in df of n rows.
func ftsIDF(n, df int) float64 {
	idf := math.Log((float64(n) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// bm25Rank scores the candidates that pass the filter, best first, at
// most n of them; count counts a term in a text.
func bm25Rank(cands []candidate, terms []scoredTerm, count func(text, term string) int, avg float64, n int) []Ranked {
	var out []Ranked
	for _, c := range cands {
		if !c.keep {
			continue
		}
		score := 0.0
		for _, t := range terms {
			tf := float64(count(c.text, t.text)) + headingWeight*float64(count(c.heading, t.text))
			score += bm25(t.idf, tf, c.length, avg)
		}
		if score > 0 {
			out = append(out, Ranked{Chunk: c.id, Score: score})
		}
	}
	return bestFirst(out, n)
}

// bm25 is one term's part of a chunk's score: its weight idf, its
// weighted count tf in the chunk, the chunk's length and the average.
func bm25(idf, tf, length, avg float64) float64 {
	if tf == 0 {
		return 0
	}
	norm := 1 - bm25B
	if avg > 0 {
		norm += bm25B * length / avg
	}
	return idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
}

// bestFirst sorts rs by score, best first, then by id, and keeps n.
func bestFirst(rs []Ranked, n int) []Ranked {
	slices.SortFunc(rs, func(a, b Ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Chunk, b.Chunk)
	})
	return rs[:min(n, len(rs))]
}

// countOverlapping counts where term starts in text, overlaps included:
// how often the trigram index finds a phrase.
func countOverlapping(text, term string) int {
	if term == "" {
		return 0
	}
	n := 0
	for {
		i := strings.Index(text, term)
		if i < 0 {
			return n
		}
		n++
		_, size := utf8.DecodeRuneInString(text[i:])
		text = text[i+size:]
	}
}

// maxExpand bounds the trigrams a short CJK run stands for.
const maxExpand = 64

// candidateTrigrams lists the trigrams beginning with prefix that the
// candidates' texts and headings hold, the ones most chunks hold first,
// up to maxExpand: what SQLite's trigram vocabulary answers.
func candidateTrigrams(cands []candidate, prefix string) []string {
	docs := map[string]int{}
	for _, c := range cands {
		seen := map[string]bool{}
		for _, col := range []string{c.text, c.heading} {
			rs := []rune(col)
			for i := 0; i+3 <= len(rs); i++ {
				if g := string(rs[i : i+3]); strings.HasPrefix(g, prefix) && !seen[g] {
					seen[g] = true
					docs[g]++
				}
			}
		}
	}
	grams := make([]string, 0, len(docs))
	for g := range docs {
		grams = append(grams, g)
	}
	slices.SortFunc(grams, func(a, b string) int {
		if c := cmp.Compare(docs[b], docs[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return grams[:min(maxExpand, len(grams))]
}

// quoteLexeme is w as one quoted tsquery lexeme.
func quoteLexeme(w string) string {
	return "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w) + "'"
}
