package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

const (
	// rankWindow is how many of the newest matches are scored.
	rankWindow = 300
	// scanWindow is how many of the newest messages a LIKE scan reads at
	// most; at about 1 µs a message that bounds a fruitless scan to
	// 100 ms.
	scanWindow = 100_000
	// scoreBytes is how much of each column is read for scoring and
	// snippets; matches beyond it still count as matches.
	scoreBytes = 4096
)

// candidate is a matching message with the text scoring and snippets
// need.
type candidate struct {
	session.Hit
	content, toolName, toolCalls string

	// Set by rank.
	cols   [3]folded // content, tool calls, tool name
	length float64
	score  float64
}

// searchMode says how the candidates were found, which decides how terms
// are matched when scoring and marking them.
type searchMode int

const (
	byWord       searchMode = iota // whole unicode61 words, any case
	byWordPrefix                   // words starting with each term
	bySubstring                    // anywhere, any case
)

// Search finds messages matching query, best first.
func (s *Store) Search(ctx context.Context, query string, opt session.SearchOptions) ([]session.Hit, error) {
	pq := parseQuery(query)
	if len(pq.groups) == 0 {
		return nil, nil
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = 20
	}
	if err := s.indexPending(ctx); err != nil {
		return nil, err
	}
	cands, mode, err := s.candidates(ctx, pq, opt, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search %q: %w", query, err)
	}
	ms := matchers(pq, mode)
	rank(cands, ms)
	if len(cands) > limit {
		cands = cands[:limit]
	}
	hits := make([]session.Hit, len(cands))
	for i := range cands {
		hits[i] = cands[i].Hit
		hits[i].Snippet = snippet(cands[i], ms)
	}
	if err := s.resolveRoots(ctx, hits); err != nil {
		return nil, fmt.Errorf("sqlite: search %q: %w", query, err)
	}
	return hits, nil
}

// candidates finds the messages to rank, trying the cheapest way that can
// answer the query first.
func (s *Store) candidates(ctx context.Context, pq parsedQuery, opt session.SearchOptions, limit int) ([]*candidate, searchMode, error) {
	if opt.SessionID != "" {
		return s.sessionCandidates(ctx, pq, opt)
	}
	if pq.cjk {
		cands, err := s.trigramCandidates(ctx, pq, opt, limit)
		return cands, bySubstring, err
	}
	for _, mode := range []searchMode{byWord, byWordPrefix} {
		cands, err := s.matchCandidates(ctx, "messages_fts", pq.wordMatch(mode == byWordPrefix), nil, opt)
		if err != nil || len(cands) > 0 {
			return cands, mode, err
		}
	}
	var all []*candidate
	for _, g := range pq.groups {
		cands, err := s.scanCandidates(ctx, g, opt, limit)
		if err != nil {
			return nil, bySubstring, err
		}
		all = appendNew(all, cands)
	}
	return all, bySubstring, nil
}

// sessionCandidates searches inside one session by reading it: a
// session is small, and reading its messages (about 1 µs each) costs
// less than checking each against an index (about 40 µs) or walking a
// common word's matches across the whole store to find the few in it.
// Messages holding every term of an alternative as a substring are read;
// for a word query, those where the terms stand as whole words are kept,
// or failing any, as word beginnings, as the word index would have
// chosen.
func (s *Store) sessionCandidates(ctx context.Context, pq parsedQuery, opt session.SearchOptions) ([]*candidate, searchMode, error) {
	var all []*candidate
	for _, g := range pq.groups {
		cands, err := s.scanCandidates(ctx, g, opt, rankWindow)
		if err != nil {
			return nil, bySubstring, err
		}
		all = appendNew(all, cands)
	}
	if pq.cjk {
		return all, bySubstring, nil
	}
	for _, mode := range []searchMode{byWord, byWordPrefix} {
		var kept []*candidate
		for _, c := range all {
			if matchesAnyGroup(c, pq, mode) {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			return kept, mode, nil
		}
	}
	return all, bySubstring, nil
}

// matchesAnyGroup reports whether every term of some alternative of pq
// occurs in c, matched as mode says.
func matchesAnyGroup(c *candidate, pq parsedQuery, mode searchMode) bool {
	cols := []string{lowerAligned(c.content), lowerAligned(c.toolCalls), lowerAligned(c.toolName)}
	for _, g := range pq.groups {
		all := true
		for _, m := range matchers(parsedQuery{groups: []group{g}}, mode) {
			found := false
			for _, col := range cols {
				if start, _ := m.next(col, 0); start >= 0 {
					found = true
					break
				}
			}
			if !found {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// appendNew appends the candidates of more not already in cands.
func appendNew(cands, more []*candidate) []*candidate {
	seen := make(map[int64]bool, len(cands))
	for _, c := range cands {
		seen[c.MessageID] = true
	}
	for _, c := range more {
		if !seen[c.MessageID] {
			seen[c.MessageID] = true
			cands = append(cands, c)
		}
	}
	return cands
}

// maxLineage bounds the walk up parent links, in case a hand-edited file
// has a cycle.
const maxLineage = 1000

// resolveRoots sets RootID on every hit: the first session of its
// lineage, found by following parent_session_id up in one recursive
// query for all the hits' sessions.
func (s *Store) resolveRoots(ctx context.Context, hits []session.Hit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, 0, len(hits))
	seen := map[string]bool{}
	for _, h := range hits {
		if !seen[h.SessionID] {
			seen[h.SessionID] = true
			ids = append(ids, h.SessionID)
		}
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encode session ids: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `
WITH RECURSIVE chain(start, id, parent, depth) AS (
	SELECT id, id, parent_session_id, 0 FROM sessions
	WHERE id IN (SELECT value FROM json_each(?1))
	UNION ALL
	SELECT c.start, p.id, p.parent_session_id, c.depth + 1
	FROM chain c JOIN sessions p ON p.id = c.parent
	WHERE c.depth < ?2
)
SELECT start, id FROM chain ORDER BY start, depth`, string(list), maxLineage)
	if err != nil {
		return fmt.Errorf("find lineage roots: %w", err)
	}
	return session.SetRoots(rows, hits)
}
