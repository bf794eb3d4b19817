package sqlite

import (
	"strings"
	"testing"
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
