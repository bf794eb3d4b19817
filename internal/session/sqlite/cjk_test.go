package sqlite

import (
	"strings"
	"testing"
)

// hasCJK skips bytes that cannot lead a CJK character; it must agree with
// looking at every rune, on valid and broken UTF-8 alike.
func FuzzHasCJK(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "迁移", "カタカナ", "한국어", "full－width", "\xe4\xb8", "\xef\xbf\xbd", "é ü", "\u3000", "\uffef", "\ufff0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasCJK(s), strings.IndexFunc(s, isCJK) >= 0; got != want {
			t.Errorf("hasCJK(%q) = %v, want %v", s, got, want)
		}
	})
}
