package facts

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// Ranking is BM25 with two simplifications a fact store can afford: a
// fact is one sentence, so a term counts once however often it occurs
// (BM25's term-frequency factor saturates at one), and lengths are so
// alike that length normalization (b) is zero. What remains is the sum of
// the matched terms' inverse document frequencies, with Lucene's
// always-positive IDF,
//
//	idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)),
//
// so a term found in most facts still counts a little, where FTS5's
// bm25() counts it as nothing.
//
// Coverage divides that score by the weight of the query's coverWeight
// most informative terms (a term no fact has weighs the most), capped at
// one. A short question whose every word a fact has scores 1; a fact
// sharing one common word with a message of several rarer ones scores
// little; and a long message is not penalized for words beyond the few
// that matter.
const coverWeight = 4

// idf is the inverse document frequency of a term found in df of n facts.
func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// hits is what the indexes said about each term of a query.
type hits struct {
	n     int             // facts in the store
	df    []int           // facts holding terms[i]
	match map[int64][]int // fact id -> indexes of the terms it holds
}

// liveFacts returns the ids of the owner's current facts, through the
// facts_live index alone: the word index then needs no lookup of each
// matching row to tell whose it is and whether it still holds.
func (s *Store) liveFacts(ctx context.Context) (map[int64]bool, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id FROM facts WHERE owner = ? AND superseded_by = 0`, s.owner)
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	defer rows.Close()
	live := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list facts: %w", err)
		}
		live[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	return live, nil
}

// collect looks every term up among the live facts: words in the word
// index, CJK terms by one scan of the facts that have CJK text.
func (s *Store) collect(ctx context.Context, terms []term, live map[int64]bool) (*hits, error) {
	h := &hits{n: len(live), df: make([]int, len(terms)), match: map[int64][]int{}}
	var cjk []int
	for i, t := range terms {
		if t.cjk {
			cjk = append(cjk, i)
			continue
		}
		if err := s.matchWord(ctx, h, i, t, live); err != nil {
			return nil, err
		}
	}
	if len(cjk) > 0 {
		if err := s.scanCJK(ctx, h, terms, cjk, live); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// matchWord records the live facts whose subject or content has the word
// t: through FTS5 in SQLite, through the search_words tsvector in
// PostgreSQL. Both find the same facts ('simple' splits words as
// unicode61 does, and both match a stem as a prefix), and rank then
// scores them in Go from the counts alone, so the two backends rank a
// query's matches alike.
func (s *Store) matchWord(ctx context.Context, h *hits, i int, t term, live map[int64]bool) error {
	query, args := `SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?`, []any{quoteFTS(t)}
	if s.db.Dialect() == sqldb.Postgres {
		query, args = `SELECT id FROM facts WHERE search_words @@ to_tsquery('simple', ?) AND owner = ? AND superseded_by = 0`, []any{quoteTSQuery(t), s.owner}
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("search facts for %q: %w", t.text, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("search facts for %q: %w", t.text, err)
		}
		if live[id] {
			h.df[i]++
			h.match[id] = append(h.match[id], i)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search facts for %q: %w", t.text, err)
	}
	return nil
}

// scanCJK records the live CJK facts holding each CJK term, reading each
// such fact once and telling in Go which terms it holds. (Having SQL
// pick the facts holding any term with an OR of instr() calls was slower
// once a long message gave 30 terms.) The scan reads the table in order
// (NOT INDEXED): through an index of the CJK rows, each row cost a
// b-tree lookup. CJK has no letter case, so the text is not lower-cased.
// PostgreSQL scans the same way: the terms are two characters, which
// pg_trgm has no trigram for.
func (s *Store) scanCJK(ctx context.Context, h *hits, terms []term, idx []int, live map[int64]bool) error {
	notIndexed := " NOT INDEXED"
	if s.db.Dialect() == sqldb.Postgres {
		notIndexed = ""
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, subject || ' ' || content FROM facts`+notIndexed+`
WHERE has_cjk = 1 AND owner = ? AND superseded_by = 0`, s.owner)
	if err != nil {
		return fmt.Errorf("scan CJK facts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			text string
		)
		if err := rows.Scan(&id, &text); err != nil {
			return fmt.Errorf("scan CJK facts: %w", err)
		}
		if !live[id] {
			continue
		}
		for _, i := range idx {
			if strings.Contains(text, terms[i].text) {
				h.df[i]++
				h.match[id] = append(h.match[id], i)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan CJK facts: %w", err)
	}
	return nil
}

// ranked is one matching fact before its row is read: how its words
// matched, how near its vector is, and the two fused.
type ranked struct {
	id              int64
	score, coverage float64
	// ratio is coverage before its cap at one: what weighLength weighs.
	ratio float64
	words bool
	// sim is the cosine of the fact's vector with the query's, margin
	// how far it beats the query's background (anchors.go); vec says the
	// fact has a vector to compare.
	sim, margin float64
	vec         bool
	fused       float64
}

// rank scores every fact in h and returns them best first.
func (h *hits) rank() []ranked {
	weights := make([]float64, len(h.df))
	for i, df := range h.df {
		weights[i] = idf(h.n, df)
	}
	top := slices.Sorted(slices.Values(weights))
	slices.Reverse(top)
	denom := 0.0
	for _, w := range top[:min(coverWeight, len(top))] {
		denom += w
	}
	out := make([]ranked, 0, len(h.match))
	for id, ts := range h.match {
		r := ranked{id: id, words: true}
		for _, i := range ts {
			r.score += weights[i]
		}
		if denom > 0 {
			r.ratio = r.score / denom
			r.coverage = min(1, r.ratio)
		}
		out = append(out, r)
	}
	sortRanked(out)
	return out
}

// sortRanked orders by coverage, then score, then newest first.
func sortRanked(rs []ranked) {
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.coverage, a.coverage); c != 0 {
			return c
		}
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
}

// maxWordUnits is the length of the longest fact the word path takes at
// its word: a fact is one sentence, and the recall set's run to 30 words.
// A longer fact's coverage is weighed by maxWordUnits over its length,
// as BM25's length normalization would, so a "fact" that lists every
// common word (a poisoned page's way into every later session) matches
// every message but covers none. A CJK character counts half a word,
// about one word of the two-character pieces CJK terms are made of.
const maxWordUnits = 32

// maxLengthChecks bounds the facts whose length one search reads: the
// best by coverage, which are the ones that can be recalled.
const maxLengthChecks = 200

// weighLength lowers the coverage of the facts in rs longer than
// maxWordUnits, among those reaching MinCoverage (the others cannot be
// recalled by words, and only move down in a search).
func (s *Store) weighLength(ctx context.Context, rs []ranked) error {
	var ids []any
	at := map[int64]int{}
	for i, r := range rs {
		if r.coverage >= MinCoverage && len(ids) < maxLengthChecks {
			ids = append(ids, r.id)
			at[r.id] = i
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, norm FROM facts WHERE id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, ids...)
	if err != nil {
		return fmt.Errorf("read fact lengths: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			norm string
		)
		if err := rows.Scan(&id, &norm); err != nil {
			return fmt.Errorf("read fact lengths: %w", err)
		}
		if units := wordUnits(norm); units > maxWordUnits {
			r := &rs[at[id]]
			r.coverage = min(1, r.ratio*maxWordUnits/units)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read fact lengths: %w", err)
	}
	return nil
}

// wordUnits is the length of a normalized text (normalize) in words, a
// CJK character counting half.
func wordUnits(norm string) float64 {
	var units float64
	for w := range strings.FieldsSeq(norm) {
		if r, _ := utf8.DecodeRuneInString(w); isCJK(r) {
			units += 0.5
		} else {
			units++
		}
	}
	return units
}
