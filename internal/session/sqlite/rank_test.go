package sqlite

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

func TestLowerAlignedKeepsOffsets(t *testing.T) {
	for _, s := range []string{"Hello WORLD", "数据库 Migration", "İstanbul ẞtraße", "bad \xff byte", ""} {
		l := lowerAligned(s)
		if len(l) != len(s) {
			t.Errorf("lowerAligned(%q) = %q: %d bytes, want %d", s, l, len(l), len(s))
		}
	}
	if got := lowerAligned("Hello ÀÉ 数据"); got != "hello àé 数据" {
		t.Errorf("lowerAligned = %q", got)
	}
}

func TestMatcher(t *testing.T) {
	word := func(q string, prefix bool) matcher {
		return matchers(parsedQuery{groups: []group{{{text: q, prefix: prefix}}}}, byWord)[0]
	}
	sub := matchers(parsedQuery{groups: []group{{{text: "迁移"}}}}, bySubstring)[0]
	for _, tc := range []struct {
		m    matcher
		text string
		want int
	}{
		{word("billing", false), "billing, rebilling and billing-service", 2},
		{word("bill", false), "billing", 0},
		{word("bill", true), "billing bill rebill", 2},
		{word("pg_dump", false), "pg_dump pg-dump pg dump pgdump", 3},
		{word("Kubernetes", false), "KUBERNETES kubernetes", 2},
		{sub, "迁移脚本和数据迁移", 2},
	} {
		if got := tc.m.count(lowerAligned(tc.text)); got != tc.want {
			t.Errorf("%+v in %q: %d matches, want %d", tc.m.words, tc.text, got, tc.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	ms := matchers(parsedQuery{groups: []group{{{text: "zebra"}}}}, byWord)
	long := strings.Repeat("one two three ", 10) + "the\n\nZebra   crossing " + strings.Repeat("four five six ", 10)
	c := &candidate{content: long}
	c.cols = [3]folded{fold(c.content), fold(""), fold("")}
	got := snippet(c, ms)
	// Eight tokens each side, white space folded to single spaces.
	want := "...three one two three one two three the >>>Zebra<<< crossing four five six four five six four..."
	if got != want {
		t.Errorf("snippet =\n%q, want\n%q", got, want)
	}

	ms = matchers(parsedQuery{groups: []group{{{text: "迁移"}}}}, bySubstring)
	c = &candidate{content: "我们今天讨论了数据库的迁移方案以及回滚的步骤和所有的风险"}
	c.cols = [3]folded{fold(c.content), fold(""), fold("")}
	if got := snippet(c, ms); got != "...天讨论了数据库的>>>迁移<<<方案以及回滚的步..." {
		t.Errorf("CJK snippet = %q", got)
	}

	c = &candidate{toolCalls: `[{"name":"terminal","arguments":"{\"command\":\"ls\"}"}]`}
	c.cols = [3]folded{fold(""), fold(c.toolCalls), fold("")}
	if got := snippet(c, matchers(parsedQuery{groups: []group{{{text: "terminal"}}}}, byWord)); !strings.Contains(got, ">>>terminal<<<") {
		t.Errorf("tool call snippet = %q", got)
	}
}

// TestSnippetKeepsSecretsWhole checks that neither a mark nor an edge of
// a snippet falls inside a key, so the redactor that reads the snippet
// after still recognises it, whichever piece of it was searched for.
func TestSnippetKeepsSecretsWhole(t *testing.T) {
	const key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
	r := redact.New(nil)
	for _, tc := range []struct {
		query   string
		content string
	}{
		{"live", "the key is " + key + " keep it safe"},
		{"sk", "the key is " + key + " keep it safe"},
		{"4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "key=" + key},
		// The match is far from the key: the snippet's edge falls in it.
		{"zebra", strings.Repeat("w ", 3) + "zebra a b c d e f g " + key + " and more words after it"},
		{"zebra", key + " a b c d e f g h zebra"},
	} {
		ms := matchers(parsedQuery{groups: []group{{{text: tc.query}}}}, byWord)
		c := &candidate{content: tc.content}
		c.cols = [3]folded{fold(c.content), fold(""), fold("")}
		got := snippet(c, ms)
		plain := strings.NewReplacer(markOpen, "", markClose, "", ellipsis, " ").Replace(got)
		if strings.Contains(plain, "4f9a8b7c") && !strings.Contains(plain, key) {
			t.Errorf("%q in %q: the snippet %q holds a piece of the key", tc.query, tc.content, got)
		}
		if red := r.Redact(got); strings.Contains(red, "4f9a8b7c") {
			t.Errorf("%q in %q: the redacted snippet %q still shows the key", tc.query, tc.content, red)
		}
	}
}
