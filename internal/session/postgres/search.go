package postgres

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lib/pq"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/sqltext"
)

// rankWindow is how many of the newest matches are scored: ranking
// every match of a common word would read them all, as session/sqlite
// found; the newest few hundred hold what people look for.
const rankWindow = 300

// searchMode says how terms are matched.
type searchMode int

const (
	byWord       searchMode = iota // whole words, through search_words
	byWordPrefix                   // words starting with each term
	bySubstring                    // anywhere, any case, through the trigram index
)

// candidate is a matching message with its text for ranking and
// snippets.
type candidate struct {
	session.Hit
	text  string
	score float64
}

// Search finds messages matching query, best first. Words go through
// the tsvector index ('simple': no stemming, no stop words); a query
// they cannot answer tries its words as prefixes, then as substrings.
// A query with CJK text goes to substrings at once: the word parser
// does not split CJK into words.
func (s *Store) Search(ctx context.Context, query string, opt session.SearchOptions) ([]session.Hit, error) {
	parsed := parseQuery(query)
	if len(parsed.groups) == 0 {
		return nil, nil
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = 20
	}
	cands, err := s.candidates(ctx, parsed, opt)
	if err != nil {
		return nil, fmt.Errorf("postgres: search %q: %w", query, err)
	}
	terms := parsed.terms()
	rank(cands, terms)
	cands = cands[:min(limit, len(cands))]
	hits := make([]session.Hit, len(cands))
	for i, c := range cands {
		hits[i] = c.Hit
		hits[i].Snippet = snippet(c.text, terms)
	}
	if err := s.resolveRoots(ctx, hits); err != nil {
		return nil, fmt.Errorf("postgres: search %q: %w", query, err)
	}
	return hits, nil
}

// candidates finds the newest rankWindow matches, trying words, then
// word beginnings, then substrings, and stopping at the first way that
// finds any.
func (s *Store) candidates(ctx context.Context, parsed parsedQuery, opt session.SearchOptions) ([]*candidate, error) {
	modes := []searchMode{byWord, byWordPrefix, bySubstring}
	var words map[string]string
	if parsed.cjk {
		modes = modes[2:]
	} else {
		var err error
		if words, err = s.lexemes(ctx, parsed.terms()); err != nil {
			return nil, err
		}
	}
	for _, mode := range modes {
		var a sqlArgs
		match := parsed.where(mode, words, &a)
		if match == "" {
			continue // no alternative can match this way
		}
		cands, err := s.matches(ctx, match, opt, &a)
		if err != nil || len(cands) > 0 {
			return cands, err
		}
	}
	return nil, nil
}

// lexemes returns, for each term, the phrase query PostgreSQL's parser
// makes of it (phraseto_tsquery('simple', ...) as text), "" for a term
// with no word in it. Asking the server keeps the query's words the
// same as the index's.
func (s *Store) lexemes(ctx context.Context, terms []term) (map[string]string, error) {
	texts := make([]string, len(terms))
	for i, t := range terms {
		texts[i] = t.text
	}
	rows, err := s.db.QueryContext(ctx, `SELECT t, phraseto_tsquery('simple', t)::text FROM unnest($1::text[]) AS t`, pq.Array(texts))
	if err != nil {
		return nil, fmt.Errorf("parse the query's words: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var t, q string
		if err := rows.Scan(&t, &q); err != nil {
			return nil, fmt.Errorf("parse the query's words: %w", err)
		}
		out[t] = q
	}
	return out, rows.Err()
}

// sqlArgs collects a query's parameters.
type sqlArgs struct{ args []any }

// add appends v and returns its placeholder.
func (a *sqlArgs) add(v any) string {
	a.args = append(a.args, v)
	return fmt.Sprintf("$%d", len(a.args))
}

// where is the condition matching the query's alternatives in mode, "" when
// none can match.
func (parsed parsedQuery) where(mode searchMode, words map[string]string, a *sqlArgs) string {
	var alts []string
	for _, g := range parsed.groups {
		var conds []string
		for _, t := range g {
			c := t.condition(mode, words[t.text], a)
			if c == "" {
				conds = nil
				break
			}
			conds = append(conds, c)
		}
		if len(conds) > 0 {
			alts = append(alts, "("+strings.Join(conds, " AND ")+")")
		}
	}
	return strings.Join(alts, " OR ")
}

// condition matches t in mode, given its phrase query tsq; "" when t
// cannot match that way (no word in it).
//
// Substrings of three characters or more go through ILIKE, which the
// pg_trgm index serves. One or two characters have no trigram, so no
// trigram index can serve them: those (a two-character Chinese word is
// the common case) are found by strpos over the rows the other
// conditions leave, a scan of the messages. A term without case (CJK,
// digits) is looked for in the text as stored, with strpos or LIKE
// (which the trigram index serves as well): lowering every message the
// query tests took most of its time, three times as long at a million
// messages.
func (t term) condition(mode searchMode, tsq string, a *sqlArgs) string {
	short := utf8.RuneCountInString(t.text) < 3
	switch {
	case mode == bySubstring && short && caseless(t.text):
		return "strpos(m.search_text, " + a.add(t.text) + ") > 0"
	case mode == bySubstring && short:
		return "strpos(lower(m.search_text), lower(" + a.add(t.text) + ")) > 0"
	case mode == bySubstring && caseless(t.text):
		return "m.search_text LIKE " + a.add("%"+sqltext.EscapeLike(t.text)+"%") + ` ESCAPE '\'`
	case mode == bySubstring:
		return "m.search_text ILIKE " + a.add("%"+sqltext.EscapeLike(t.text)+"%") + ` ESCAPE '\'`
	case tsq == "":
		return ""
	case mode == byWordPrefix || t.prefix:
		return "m.search_words @@ " + a.add(tsq+":*") + "::tsquery"
	default:
		return "m.search_words @@ " + a.add(tsq) + "::tsquery"
	}
}

// caseless says no character of s has case: no other character
// lowercases to one of them, so lower(text) holds s exactly where text
// does.
func caseless(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return false // a script with case, or one not worth being sure of
		}
		if unicode.ToLower(r) != r || unicode.ToUpper(r) != r {
			return false // circled letters, Roman numerals
		}
	}
	return true
}

// matches reads the newest rankWindow messages matching match and opt's
// filters. Without a filter on the session, the session's title is
// joined to the newest rankWindow matches only, not to every match
// before they are sorted: a common word matches tens of thousands of
// messages at a million, and joining them all took a third of the
// query's time.
func (s *Store) matches(ctx context.Context, match string, opt session.SearchOptions, a *sqlArgs) ([]*candidate, error) {
	filters := []string{"(" + match + ")"}
	bySession := false
	for _, f := range []struct{ col, val string }{
		{"m.session_id", opt.SessionID}, {"s.source", opt.Source}, {"m.role", string(opt.Role)},
		{"s.user_id", opt.User}, {"s.tenant", opt.Tenant},
	} {
		if f.val != "" {
			filters = append(filters, f.col+" = "+a.add(text(f.val)))
			bySession = bySession || strings.HasPrefix(f.col, "s.")
		}
	}
	where := strings.Join(filters, " AND ")
	query := `
SELECT m.id, m.session_id, m.role, m.tool_name, m.created_at, s.title, m.search_text
FROM messages m JOIN sessions s ON s.id = m.session_id
WHERE ` + where + `
ORDER BY m.id DESC LIMIT ` + fmt.Sprint(rankWindow)
	if !bySession {
		query = `
SELECT m.id, m.session_id, m.role, m.tool_name, m.created_at, s.title, m.search_text
FROM (SELECT m.id, m.session_id, m.role, m.tool_name, m.created_at, m.search_text
	FROM messages m WHERE ` + where + `
	ORDER BY m.id DESC LIMIT ` + fmt.Sprint(rankWindow) + `) m
JOIN sessions s ON s.id = m.session_id
ORDER BY m.id DESC`
	}
	rows, err := s.db.QueryContext(ctx, query, a.args...)
	if err != nil {
		return nil, fmt.Errorf("find matches: %w", err)
	}
	defer rows.Close()
	var out []*candidate
	for rows.Next() {
		var (
			c       candidate
			role    string
			created int64
		)
		if err := rows.Scan(&c.MessageID, &c.SessionID, &role, &c.ToolName, &created, &c.SessionTitle, &c.text); err != nil {
			return nil, fmt.Errorf("read matches: %w", err)
		}
		c.Role, c.CreatedAt = llm.Role(role), fromMicros(created)
		out = append(out, &c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read matches: %w", err)
	}
	return out, nil
}

// maxLineage bounds the walk up parent links, in case of a cycle.
const maxLineage = 1000

// resolveRoots sets RootID on every hit: the first session of its
// lineage, found by following parent links up in one recursive query.
func (s *Store) resolveRoots(ctx context.Context, hits []session.Hit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.SessionID
	}
	rows, err := s.db.QueryContext(ctx, `
WITH RECURSIVE chain (start, id, parent, depth) AS (
	SELECT id, id, parent_session_id, 0 FROM sessions WHERE id = ANY ($1::text[])
	UNION ALL
	SELECT c.start, p.id, p.parent_session_id, c.depth + 1
	FROM chain c JOIN sessions p ON p.id = c.parent
	WHERE c.depth < $2
)
SELECT start, id FROM chain ORDER BY start, depth`, pq.Array(ids), maxLineage)
	if err != nil {
		return fmt.Errorf("find lineage roots: %w", err)
	}
	return session.SetRoots(rows, hits)
}
