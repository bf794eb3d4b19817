package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// factColumns are the columns scanFact reads, in order.
const factColumns = `id, kind, subject, content, source_session, created_at, last_used_at, uses, superseded_by`

// Search returns up to limit facts matching any term of query, or near
// it in meaning, best first (fuse.go). Anything may be typed: terms are
// quoted before they reach FTS5, and a query with no searchable term
// finds by meaning alone. With vectors, a fact no word of the query
// matches is found only when its cosine beats the query's background
// (anchors.go): ranked among everything, every fact would be "found". A
// limit below one means 10.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]Scored, error) {
	out, err := s.search(ctx, query, limit, 1, func(r ranked) bool { return r.words || r.margin > 0 })
	if err != nil {
		return nil, fmt.Errorf("facts: search %q: %w", query, err)
	}
	return out, nil
}

// search is Search with the shortest CJK run that counts as a term, and
// the test a fact must pass before the best limit are taken.
func (s *Store) search(ctx context.Context, query string, limit, minCJK int, keep func(ranked) bool) ([]Scored, error) {
	if limit < 1 {
		limit = 10
	}
	live, err := s.liveFacts(ctx)
	if err != nil || len(live) == 0 {
		return nil, err
	}
	// Words and vectors are looked up side by side: one waits on SQLite,
	// the other on the embedder and the scan of the vectors.
	near := make(chan nearby, 1)
	go func() { near <- s.nearby(ctx, query, live) }()
	byID, wordsErr := s.wordRanks(ctx, query, minCJK, live)
	v := <-near
	if err := errors.Join(wordsErr, v.err); err != nil {
		return nil, err
	}
	v.into(byID)
	rs := make([]ranked, 0, len(byID))
	for _, r := range byID {
		if keep(*r) {
			rs = append(rs, *r)
		}
	}
	fuse(rs)
	if len(rs) > limit {
		rs = rs[:limit]
	}
	if len(rs) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	facts, err := s.load(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Scored, 0, len(rs))
	for _, r := range rs {
		if f, ok := facts[r.id]; ok { // a fact forgotten meanwhile is skipped
			out = append(out, Scored{Fact: f, Score: r.score, Coverage: r.coverage, Similarity: r.sim, Margin: r.margin})
		}
	}
	return out, nil
}

// wordRanks ranks the live facts by the words of query, unless recall
// goes by vectors alone.
func (s *Store) wordRanks(ctx context.Context, query string, minCJK int, live map[int64]bool) (map[int64]*ranked, error) {
	byID := map[int64]*ranked{}
	if s.mode == RecallVectors && s.embed != nil {
		return byID, nil
	}
	terms := parseTerms(query, minCJK)
	if len(terms) == 0 {
		return byID, nil
	}
	h, err := s.collect(ctx, terms, live)
	if err != nil {
		return nil, err
	}
	rs := h.rank()
	if err := s.weighLength(ctx, rs); err != nil {
		return nil, err
	}
	for _, r := range rs {
		byID[r.id] = &r
	}
	return byID, nil
}

// nearby is what the vectors say of a query: each live fact's cosine,
// and the query's background (anchors.go); ok is false when there are no
// vectors to go by.
type nearby struct {
	sims map[int64]float64
	bg   float64
	ok   bool
	err  error
}

// nearby compares query with the live facts' vectors, unless recall goes
// by words alone.
func (s *Store) nearby(ctx context.Context, query string, live map[int64]bool) nearby {
	if s.mode == RecallWords {
		return nearby{}
	}
	var v nearby
	v.sims, v.bg, v.ok, v.err = s.similarities(ctx, query, live)
	return v
}

// into adds the vectors' findings to the word ranking byID.
func (v nearby) into(byID map[int64]*ranked) {
	if !v.ok {
		return
	}
	for id, sim := range v.sims {
		r := byID[id]
		if r == nil {
			r = &ranked{id: id}
			byID[id] = r
		}
		r.vec, r.sim, r.margin = true, sim, sim-v.bg
	}
}

// load reads the facts with the given ids.
func (s *Store) load(ctx context.Context, ids []int64) (map[int64]Fact, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+factColumns+` FROM facts WHERE owner = ? AND id IN (?`+
		strings.Repeat(",?", len(ids)-1)+`)`, append([]any{s.owner}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	fs, err := scanFacts(rows)
	if err != nil {
		return nil, err
	}
	m := make(map[int64]Fact, len(fs))
	for _, f := range fs {
		m[f.ID] = f
	}
	return m, nil
}

// List returns up to limit current facts, newest first. A limit below
// one means all of them.
func (s *Store) List(ctx context.Context, limit int) ([]Fact, error) {
	return s.list(ctx, limit, ` AND superseded_by = 0`)
}

// ListAll is List with the superseded facts too.
func (s *Store) ListAll(ctx context.Context, limit int) ([]Fact, error) {
	return s.list(ctx, limit, "")
}

func (s *Store) list(ctx context.Context, limit int, cond string) ([]Fact, error) {
	query, args := `SELECT `+factColumns+` FROM facts WHERE owner = ?`+cond+`
ORDER BY created_at DESC, id DESC`, []any{s.owner}
	if limit >= 1 {
		query, args = query+` LIMIT ?`, append(args, limit)
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("facts: list: %w", err)
	}
	fs, err := scanFacts(rows)
	if err != nil {
		return nil, fmt.Errorf("facts: list: %w", err)
	}
	return fs, nil
}

// Forget deletes the fact with id, or returns ErrNotFound.
func (s *Store) Forget(ctx context.Context, id int64) error {
	err := s.writeTx(ctx, "facts: forget", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM facts WHERE id = ? AND owner = ?`, id, s.owner)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("fact %d: %w", id, ErrNotFound)
		}
		return nil
	})
	return err
}

// MarkUsed records that the facts with ids were recalled now: their use
// count grows by one and their last-used time is set. Unknown ids are
// ignored, since a fact may have been forgotten since it was recalled.
func (s *Store) MarkUsed(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	now := micros(s.now())
	err := s.writeTx(ctx, "facts: mark used", func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx,
				`UPDATE facts SET uses = uses + 1, last_used_at = ? WHERE id = ?`, now, id); err != nil {
				return fmt.Errorf("fact %d: %w", id, err)
			}
		}
		return nil
	})
	return err
}

// scanFacts reads rows of factColumns and closes them.
func scanFacts(rows *sql.Rows) ([]Fact, error) {
	defer rows.Close()
	var fs []Fact
	for rows.Next() {
		var (
			f             Fact
			kind          string
			created, used int64
		)
		if err := rows.Scan(&f.ID, &kind, &f.Subject, &f.Content, &f.SourceSession, &created, &used, &f.Uses, &f.SupersededBy); err != nil {
			return nil, fmt.Errorf("read fact: %w", err)
		}
		f.Kind = Kind(kind)
		f.CreatedAt = fromMicros(created)
		f.LastUsedAt = fromMicros(used)
		fs = append(fs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	return fs, nil
}
