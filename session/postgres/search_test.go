package postgres

import (
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// TestSearchTsquerySyntax: what the user types reaches PostgreSQL only
// as a phrase to parse (phraseto_tsquery) or a LIKE pattern with its
// wildcards escaped, so tsquery's own syntax (& | ! <-> :* weights,
// quotes, backslashes) in a query never fails a search in any mode, and
// a word written with it is still found.
func TestSearchTsquerySyntax(t *testing.T) {
	s := openStore(t)
	id := mustCreate(t, s)
	if err := s.Append(t.Context(), id, &session.Message{Message: llm.UserMessage(`it's the capybara's turn: a&b | c!d <-> e:*f \g 50%`)}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`a & b`, `a | b`, `!capybara`, `capybara <-> turn`, `capybara:*`, `capybara:A`, `capybara:AB*`,
		`'capybara'`, `''`, `it's`, `capybara'`, `\`, `\\capybara`, `:*`, `*:`, `&`, `|`, `!`, `<->`, `<2>`,
		`capy*ba*`, `(capybara)`, `capybara & !turn`, `'it''s'*`, `e:*f`, `\g`, `50%`, `c!d*`, `a&b*`,
	} {
		if _, err := s.Search(t.Context(), q, session.SearchOptions{}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	for _, q := range []string{`capybara`, `capybara:*`, `!capybara`, `'capybara'`, `capy*`, `it's`, `c!d`, `e:*f`, `50%`} {
		if hits, err := s.Search(t.Context(), q, session.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("Search(%q) = %+v, %v; want the message", q, hits, err)
		}
	}
}
