package memory

import (
	"slices"
	"testing"
)

func TestUsageString(t *testing.T) {
	for _, tc := range []struct {
		entries []string
		limit   int
		want    string
	}{
		{nil, 2200, "0% — 0/2,200 chars"},
		{[]string{"ab", "cd"}, 10, "70% — 7/10 chars"},
		{[]string{"日本語"}, 1375, "0% — 3/1,375 chars"},
		{[]string{string(make([]rune, 2199))}, 2200, "99% — 2,199/2,200 chars"},
	} {
		if got := usageOf(tc.entries, tc.limit).String(); got != tc.want {
			t.Errorf("usage of %d entries = %q, want %q", len(tc.entries), got, tc.want)
		}
	}
}

// FuzzParse checks that any file text reads as entries that survive a
// write and a read unchanged, so hermes never corrupts a hand-edited file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "a\n§\nb", "§", "\r\na \r\n§ \r\nb\r\n", "a\n§\n\n§\nb", "§\n§", "x§y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries := parse(text)
		for _, e := range entries {
			if e == "" {
				t.Fatalf("parse(%q) produced an empty entry", text)
			}
		}
		if again := parse(format(entries)); !slices.Equal(again, entries) {
			t.Fatalf("round trip of %q: %q became %q", text, entries, again)
		}
	})
}
