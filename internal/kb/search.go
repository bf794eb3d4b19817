package kb

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// Query is what Search looks for.
type Query struct {
	// Text is the question or keywords, in any language.
	Text string
	// KB limits the search to one knowledge base; empty searches all
	// (all of Within, when that is set).
	KB string
	// Within, when set, is every knowledge base the search may use: a
	// role agent's. KB must then be one of them.
	Within []string
	// SourcePrefix limits it to sources whose path or URL starts with it.
	SourcePrefix string
	// Tag limits it to sources with that tag.
	Tag string
	// Limit is the most results (5; at most 50).
	Limit int
}

// Result is one passage found, with what a citation needs.
type Result struct {
	Chunk   int64  `json:"chunk"`
	KB      string `json:"kb"`
	Source  string `json:"source"`  // path or URL
	Kind    string `json:"kind"`    // markdown, text, html, pdf or code
	Heading string `json:"heading"` // heading path, or the declaration for code
	Page    int    `json:"page"`    // PDF page, from 1; 0 otherwise
	// LineStart and LineEnd are the passage's lines in the source (in
	// the page for a PDF).
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// Score is the fused score (reciprocal rank fusion over the rankers
	// that found the passage); larger is better.
	Score float64 `json:"score"`
	// BM25 is the passage's best BM25 score over the full-text indexes
	// (negated bm25(): larger is better); 0 when only another ranker
	// found it.
	BM25 float64 `json:"bm25"`
	Text string  `json:"text"`
}

// Hits is what Search found.
type Hits struct {
	// Results are the passages, best first.
	Results []Result
	// Degraded says why a ranker beyond BM25 (vector similarity) was
	// left out of this search, "" when none was: the embedding server
	// being down costs the search its vectors, not its answer.
	Degraded string
}

// Search finds the passages best matching q: BM25 over the word index,
// and over the trigram index when the query has CJK text (where the word
// index sees a whole sentence as one word), fused with any further
// rankers by reciprocal rank fusion. A further ranker that fails is left
// out and named in Hits.Degraded; BM25 failing fails the search.
func (k *KB) Search(ctx context.Context, q Query) (Hits, error) {
	if q.Limit <= 0 {
		q.Limit = 5
	}
	q.Limit = min(q.Limit, 50)
	if err := q.check(); err != nil {
		return Hits{}, err
	}
	// Each ranker lists more than asked for, so fusion has room to
	// promote a passage two rankers agree on.
	n := max(3*q.Limit, 20)
	rankers := append([]Ranker{bm25Ranker{k: k, trigram: false}, bm25Ranker{k: k, trigram: true}}, k.opts.Rankers...)
	var lists [][]Ranked
	var hits Hits
	bm25 := map[int64]float64{}
	for i, r := range rankers {
		list, err := r.Rank(ctx, q, n)
		if err != nil && (i < 2 || ctx.Err() != nil) {
			return Hits{}, err
		}
		if err != nil {
			k.opts.Logger.Warn("knowledge base search without a ranker", "err", err)
			hits.Degraded = err.Error()
			continue
		}
		if i < 2 {
			for _, x := range list {
				if s, ok := bm25[x.Chunk]; !ok || x.Score > s {
					bm25[x.Chunk] = x.Score
				}
			}
		}
		if len(list) > 0 {
			lists = append(lists, list)
		}
	}
	fused := Fuse(RRFK, lists...)
	if len(fused) > q.Limit {
		fused = fused[:q.Limit]
	}
	var err error
	hits.Results, err = k.results(ctx, fused, bm25)
	return hits, err
}

// results reads the passages of ranked, in its order.
func (k *KB) results(ctx context.Context, ranked []Ranked, bm25 map[int64]float64) ([]Result, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	args := make([]any, len(ranked))
	for i, r := range ranked {
		args[i] = r.Chunk
	}
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT c.id, b.name, s.uri, s.kind, c.heading, c.page, c.line_start, c.line_end, c.text
FROM kb_chunks c JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE c.id IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	byID := map[int64]Result{}
	for rows.Next() {
		var r Result
		if err := rows.Scan(&r.Chunk, &r.KB, &r.Source, &r.Kind, &r.Heading, &r.Page, &r.LineStart, &r.LineEnd, &r.Text); err != nil {
			return nil, fmt.Errorf("read passages: %w", err)
		}
		byID[r.Chunk] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read passages: %w", err)
	}
	out := make([]Result, 0, len(ranked))
	for _, x := range ranked {
		if r, ok := byID[x.Chunk]; ok {
			r.Score, r.BM25 = x.Score, bm25[x.Chunk]
			out = append(out, r)
		}
	}
	return out, nil
}

// bm25Ranker ranks by BM25 over one of the two full-text indexes.
type bm25Ranker struct {
	k       *KB
	trigram bool
}

// Rank implements Ranker.
func (b bm25Ranker) Rank(ctx context.Context, q Query, n int) ([]Ranked, error) {
	if b.k.db.Dialect() == sqldb.Postgres {
		return b.rankPostgres(ctx, q, n)
	}
	p := parse(q.Text)
	table, match := "kb_chunks_fts", ""
	if b.trigram {
		table = "kb_chunks_fts_trigram"
		var err error
		if match, err = p.trigramMatch(ctx, b.k.trigramsStarting); err != nil {
			return nil, err
		}
	} else {
		var total int
		if err := b.k.db.Reader().QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM kb_chunks`).Scan(&total); err != nil {
			return nil, fmt.Errorf("count chunks: %w", err)
		}
		var err error
		if match, err = p.wordMatch(ctx, b.k.wordChunks, total); err != nil {
			return nil, err
		}
	}
	if match == "" {
		return nil, nil
	}
	// The heading weighs half the text: it names the topic of every
	// passage under it, so it says less about any one of them.
	cond, args := q.filter(sqldb.SQLite)
	rows, err := b.k.db.Reader().QueryContext(ctx, `
SELECT c.id, -bm25(`+table+`, 1.0, 0.5) AS score
FROM `+table+` JOIN kb_chunks c ON c.id = `+table+`.rowid
JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE `+table+` MATCH ?`+cond+`
ORDER BY bm25(`+table+`, 1.0, 0.5) LIMIT ?`, append(append([]any{match}, args...), n)...)
	if err != nil {
		return nil, fmt.Errorf("search the knowledge base: %w", err)
	}
	defer rows.Close()
	var out []Ranked
	for rows.Next() {
		var r Ranked
		if err := rows.Scan(&r.Chunk, &r.Score); err != nil {
			return nil, fmt.Errorf("search the knowledge base: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
