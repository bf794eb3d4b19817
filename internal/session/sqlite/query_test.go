package sqlite

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []group
		cjk  bool
		fts  string
	}{
		{q: "docker network", want: []group{{{text: "docker"}, {text: "network"}}},
			fts: `("docker" AND "network")`},
		{q: "postgres OR mysql | sqlite", want: []group{{{text: "postgres"}}, {{text: "mysql"}}, {{text: "sqlite"}}},
			fts: `("postgres") OR ("mysql") OR ("sqlite")`},
		{q: `"docker networking" deploy*`, want: []group{{{text: "docker networking"}, {text: "deploy", prefix: true}}},
			fts: `("docker networking" AND "deploy"*)`},
		{q: `python AND java`, want: []group{{{text: "python"}, {text: "java"}}},
			fts: `("python" AND "java")`},
		{q: `say "hi`, want: []group{{{text: "say"}, {text: "hi"}}},
			fts: `("say" AND "hi")`},
		{q: `a"b`, want: []group{{{text: "a"}, {text: "b"}}}, fts: `("a" AND "b")`},
		{q: `"say ""hi"""`, want: []group{{{text: "say"}, {text: "hi"}}}, fts: `("say" AND "hi")`},
		{q: `数据库迁移 kubernetes`, want: []group{{{text: "数据库迁移"}, {text: "kubernetes"}}}, cjk: true,
			fts: `("数据库迁移" AND "kubernetes")`},
		{q: `* - ( ) OR AND ^ "" ''`, want: nil, fts: ``},
		{q: `col:x NEAR(a b)`, want: []group{{{text: "col:x"}, {text: "NEAR(a"}, {text: "b)"}}},
			fts: `("col:x" AND "NEAR(a" AND "b)")`},
	} {
		pq := parseQuery(tc.q)
		if !reflect.DeepEqual(pq.groups, tc.want) || pq.cjk != tc.cjk {
			t.Errorf("parseQuery(%q) = %+v (cjk %v), want %+v (cjk %v)", tc.q, pq.groups, pq.cjk, tc.want, tc.cjk)
		}
		if got := pq.wordMatch(false); got != tc.fts {
			t.Errorf("parseQuery(%q).wordMatch() = %s, want %s", tc.q, got, tc.fts)
		}
	}
	long := strings.Repeat("word ", 100) + strings.Repeat("OR x ", 20)
	pq := parseQuery(long)
	n := 0
	for _, g := range pq.groups {
		n += len(g)
	}
	if n > maxTerms || len(pq.groups) > maxGroups {
		t.Errorf("a long query kept %d terms in %d groups", n, len(pq.groups))
	}
}

// TestSearchNeverFails searches random strings of FTS5 syntax, LIKE
// wildcards, CJK and broken UTF-8: none may fail.
func TestSearchNeverFails(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	sess := &session.Session{Source: "cli"}
	if err := s.Create(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, sess.ID,
		&session.Message{Message: llm.UserMessage(`NEAR(a b) "quoted" col:x 100% a_b 数据库迁移 \ '`)},
		&session.Message{Message: llm.AssistantMessage("ok", llm.ToolCall{ID: "c", Name: "t", Arguments: `{"q":"迁移*"}`})},
	); err != nil {
		t.Fatal(err)
	}
	pieces := []string{`"`, `'`, `*`, `-`, `+`, `^`, `:`, `(`, `)`, `{`, `}`, `%`, `_`, `\`, ` `, "\t", "\x00",
		"\xff", "\xe8\xbf", "AND", "OR", "NOT", "NEAR", "near/3", "a", "b", "col", "quoted", "迁", "移", "数据库", "·"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		q := b.String()
		for _, opt := range []session.SearchOptions{{}, {SessionID: sess.ID}, {Role: llm.RoleUser, Source: "cli"}} {
			if _, err := s.Search(ctx, q, opt); err != nil {
				t.Fatalf("Search(%q, %+v): %v", q, opt, err)
			}
		}
	}
}
