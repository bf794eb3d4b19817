package facts

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqltext"
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

// collect looks every term up: words in the FTS5 index, CJK terms by one
// scan of the facts that have CJK text.
func (s *Store) collect(ctx context.Context, terms []term) (*hits, error) {
	h := &hits{df: make([]int, len(terms)), match: map[int64][]int{}}
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE owner = ? AND superseded_by = 0`, s.owner).Scan(&h.n); err != nil {
		return nil, fmt.Errorf("count facts: %w", err)
	}
	var cjk []int
	for i, t := range terms {
		if t.cjk {
			cjk = append(cjk, i)
			continue
		}
		if err := s.matchWord(ctx, h, i, t); err != nil {
			return nil, err
		}
	}
	if len(cjk) > 0 {
		if err := s.scanCJK(ctx, h, terms, cjk); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// matchWord records the facts whose subject or content has the word t:
// through FTS5 in SQLite, through the search_words tsvector in
// PostgreSQL. Both find the same facts ('simple' splits words as
// unicode61 does, and both match a stem as a prefix), and rank then
// scores them in Go from the counts alone, so the two backends rank a
// query's matches alike.
func (s *Store) matchWord(ctx context.Context, h *hits, i int, t term) error {
	query, arg := `
SELECT facts_fts.rowid FROM facts_fts JOIN facts ON facts.id = facts_fts.rowid
WHERE facts_fts MATCH ? AND facts.owner = ? AND facts.superseded_by = 0`, quoteFTS(t)
	if s.db.Dialect() == sqldb.Postgres {
		query, arg = `SELECT id FROM facts WHERE search_words @@ to_tsquery('simple', ?) AND owner = ? AND superseded_by = 0`, quoteTSQuery(t)
	}
	rows, err := s.read.QueryContext(ctx, query, arg, s.owner)
	if err != nil {
		return fmt.Errorf("search facts for %q: %w", t.text, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("search facts for %q: %w", t.text, err)
		}
		h.df[i]++
		h.match[id] = append(h.match[id], i)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search facts for %q: %w", t.text, err)
	}
	return nil
}

// scanCJK records the CJK facts holding each CJK term, reading each such
// fact at most once: SQL picks the facts holding any of the terms, Go
// tells which. (Having SQL return a bit mask of the terms each fact
// holds instead was slower, 19 against 15 ms at 10,000 facts: every
// instr() then runs, where OR stops at the first term found.) The scan
// reads the table in order (NOT INDEXED): through an index of the CJK
// rows, each row cost a b-tree lookup, 15 against 12 ms. CJK has no
// letter case, so the text is not lower-cased. PostgreSQL scans the same
// way with strpos(): the terms are two characters, which pg_trgm has no
// trigram for.
func (s *Store) scanCJK(ctx context.Context, h *hits, terms []term, idx []int) error {
	d := s.db.Dialect()
	conds := make([]string, len(idx))
	args := make([]any, len(idx))
	for k, i := range idx {
		conds[k] = sqltext.Contains(d, "text", "?")
		args[k] = terms[i].text
	}
	notIndexed := " NOT INDEXED"
	if d == sqldb.Postgres {
		notIndexed = ""
	}
	rows, err := s.read.QueryContext(ctx, `
SELECT id, text FROM (SELECT id, subject || ' ' || content AS text FROM facts`+notIndexed+` WHERE has_cjk = 1 AND owner = ? AND superseded_by = 0) AS cjk
WHERE `+strings.Join(conds, " OR "), append([]any{s.owner}, args...)...)
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

// ranked is one matching fact before its row is read.
type ranked struct {
	id              int64
	score, coverage float64
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
		r := ranked{id: id}
		for _, i := range ts {
			r.score += weights[i]
		}
		if denom > 0 {
			r.coverage = min(1, r.score/denom)
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
