package postgres

import (
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
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

// TestCaseless: only terms no case mapping can reach are looked for
// without lower(); a letter of a cased script, a circled letter or a
// Roman numeral keeps the case-insensitive match.
func TestCaseless(t *testing.T) {
	for s, want := range map[string]bool{
		"迁移": true, "鲸": true, "すし": true, "한국": true, "42": true, "#!": true, "迁1": true,
		"ab": false, "AB": false, "迁a": false, "ß": false, "ǅ": false, "Ⓐ": false, "Ⅻ": false, "ω": false, "ЯБ": false,
	} {
		if got := caseless(s); got != want {
			t.Errorf("caseless(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestSubstringCase: a term inside a word (found as a substring, not
// through the word index), short or long, is found in any case when it
// has case, and as written when it has none.
func TestSubstringCase(t *testing.T) {
	s := openStore(t)
	id := mustCreate(t, s)
	if err := s.Append(t.Context(), id, &session.Message{Message: llm.UserMessage("数据库迁移 in ΩMEGA xⒶy xⅫy #7")}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"迁移", "库迁", "迁", "#7", "数据库迁", "据库迁移", "me", "Eg", "ωm", "ⓐ", "ⅻy", "meg", "ωMEg", "xⓐy", "XⅻY",
	} {
		if hits, err := s.Search(t.Context(), q, session.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("Search(%q) = %+v, %v; want the message", q, hits, err)
		}
	}
}
