package matrix

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// FuzzMeasure checks what splitting relies on: Measure is never less than
// the bytes hermes sends for a text, and never more for a prefix ending
// between runes than for the whole, so a chunk the splitter measured to
// fit does fit.
func FuzzMeasure(f *testing.F) {
	for _, s := range []string{"", "plain", "<b>&amp;</b>", "a\u2028b\u2029", "\x00\x1f\"\\", "\xff\xfe", "é😀日本", "\r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if n := Measure(s); n < len(b)-2 {
			t.Errorf("Measure(%q) = %d, less than the %d bytes sent", s, n, len(b)-2)
		}
		// The splitter cuts between runes, never inside one.
		for i := range s {
			if Measure(s[:i]) > Measure(s) {
				t.Fatalf("Measure of the prefix %q is more than of %q", s[:i], s)
			}
		}
		for _, chunk := range gateway.Split(s, 64, Measure) {
			if Measure(chunk) > 64 {
				t.Errorf("a chunk of %q measures %d, over 64", chunk, Measure(chunk))
			}
		}
	})
}

// FuzzReplyFallback checks that removing a reply's quote never invents
// text: what is left is the body's own end, and valid text stays valid.
func FuzzReplyFallback(f *testing.F) {
	for _, s := range []string{"> <@a:x> q\n\nanswer", "> <", "> <@a:x> q\n> r", "plain", ">\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := stripReplyFallback(s)
		if !strings.HasSuffix(s, got) {
			t.Errorf("stripReplyFallback(%q) = %q, not the end of the body", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("stripReplyFallback(%q) = %q, invalid UTF-8", s, got)
		}
	})
}
