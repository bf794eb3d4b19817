package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/session"
)

// A trigram index finds a string of three characters or more by its
// trigrams, but a 1–2 character term such as 迁移 has none: FTS5 matches
// nothing for it, and LIKE '%迁移%' on the index scans every row (1 s
// for a rare term at a million messages). Because every indexed text is
// followed by two spaces (see migration 2 in
// internal/sqlitedb/schema_sessions.go), each occurrence of a short
// term begins some trigram — 迁移脚, 迁移完, "迁移 " — so the index's
// vocabulary lists the trigrams that stand for it, and their OR is an
// exact index query.
//
// That query costs about expandCost a trigram (FTS5 looks each up in
// every segment of the index; a hundred trigrams took 4–7 ms at 100,000
// messages), while a newest-first scan costs about scanCost a row and
// finds a common term's latest matches within a few hundred rows. So the
// vocabulary's row counts decide which is cheaper. Counting costs time
// too; it stops at commonDocs rows, where a scan wins anyway. A scan reads
// only the newest scanWindow messages, so when it finds too few, the term
// is expanded after all: the answer is always complete.
const (
	commonDocs = 20_000
	maxExpand  = 400
	expandCost = 50 // µs a trigram
	scanCost   = 1  // µs a message
)

// trigramCandidates answers a query with CJK, one OR alternative at a
// time.
func (s *Store) trigramCandidates(ctx context.Context, pq parsedQuery, opt session.SearchOptions, limit int) ([]*candidate, error) {
	var rows int64
	if err := s.read.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM messages`).Scan(&rows); err != nil {
		return nil, fmt.Errorf("count messages: %w", err)
	}
	// preferScan says whether scanning for a short term in docs rows
	// beats expanding it into grams trigrams (-1: too many to count).
	preferScan := func(docs, grams int) bool {
		if !s.scanShortTerms {
			return false
		}
		return grams < 0 || scanCost*int64(limit)*rows/int64(max(docs, 1)) < int64(expandCost*grams)
	}
	var all []*candidate
	for _, g := range pq.groups {
		match, scan, ok, err := s.trigramExpr(ctx, g, preferScan, s.scanShortTerms)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // a short term begins no trigram: it occurs nowhere
		}
		var cands []*candidate
		if match == "" {
			if cands, err = s.scanCandidates(ctx, g, opt, limit); err == nil && len(cands) < limit {
				// The scan window may have hidden older matches.
				match, scan, ok, err = s.trigramExpr(ctx, g, func(int, int) bool { return false }, false)
			}
		}
		if err == nil && ok && match != "" {
			cands, err = s.matchCandidates(ctx, "messages_fts_trigram", match, scan, opt)
		}
		if err != nil {
			return nil, err
		}
		all = appendNew(all, cands)
	}
	return all, nil
}

// trigramExpr builds the trigram index expression for g: long terms as
// phrases, short terms as the OR of the trigrams they begin. Short terms
// for which preferScan(docs, trigrams) holds — trigrams is -1 when capped
// counting gave up, see trigramsStarting — are returned in scan instead,
// for a LIKE condition; if every term is one, match is empty. ok is false
// when some short term begins no trigram at all, so g cannot match.
func (s *Store) trigramExpr(ctx context.Context, g group, preferScan func(docs, grams int) bool, capped bool) (match string, scan []term, ok bool, err error) {
	var parts []string
	for _, t := range g {
		if t.runes() >= 3 {
			parts = append(parts, quoteFTS(t.text))
			continue
		}
		grams, docs, err := s.trigramsStarting(ctx, strings.ToLower(t.text), capped)
		n := len(grams)
		if grams == nil && docs > 0 {
			n = -1
		}
		switch {
		case err != nil:
			return "", nil, false, err
		case n != 0 && preferScan(docs, n):
			scan = append(scan, t)
		case n == 0:
			return "", nil, false, nil
		default:
			for i, gram := range grams {
				grams[i] = quoteFTS(gram)
			}
			parts = append(parts, "("+strings.Join(grams, " OR ")+")")
		}
	}
	return strings.Join(parts, " AND "), scan, true, nil
}

// trigramsStarting lists the indexed trigrams that begin with prefix and
// the rows they are in, counted once per trigram. If capped, it stops
// when there are more than maxExpand of them or they are in more than
// commonDocs rows, and returns nil grams with the count so far.
func (s *Store) trigramsStarting(ctx context.Context, prefix string, capped bool) (grams []string, docs int, err error) {
	rows, err := s.read.QueryContext(ctx, `
SELECT term, doc FROM messages_fts_trigram_vocab WHERE term >= ? AND term < ?`,
		prefix, prefix+"\U0010FFFF")
	if err != nil {
		return nil, 0, fmt.Errorf("trigrams starting %q: %w", prefix, err)
	}
	defer rows.Close()
	for rows.Next() {
		var gram string
		var n int
		if err := rows.Scan(&gram, &n); err != nil {
			return nil, 0, fmt.Errorf("trigrams starting %q: %w", prefix, err)
		}
		docs += n
		grams = append(grams, gram)
		if capped && (docs > commonDocs || len(grams) > maxExpand) {
			return nil, docs, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("trigrams starting %q: %w", prefix, err)
	}
	return grams, docs, nil
}
