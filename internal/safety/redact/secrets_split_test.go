package redact

import (
	"strings"
	"testing"
)

// TestSplitTokenEndsAtLineBreak checks that a token split by an
// invisible character is masked whole, and that the line after it,
// which a joined token could otherwise run into, is kept.
func TestSplitTokenEndsAtLineBreak(t *testing.T) {
	for _, in := range []string{
		"ghp_abcdef\u200b1234567890ABCDEF1234567890abcdef\nnext line",
		"sk-aaaaaaaaaaaaaaa\x1bbbbbbbbbbbbbbbbbbbbbbbbbb\r\nnext line",
		"token ghp_abcdef\x1b[0m1234567890ABCDEF1234567890abcdef\nnext line",
	} {
		got := Secrets(in)
		if !strings.HasSuffix(got, "\nnext line") || strings.Contains(got, "1234567890ABCDEF") || strings.Contains(got, "bbbbbbbb") {
			t.Errorf("Secrets(%q) = %q, want the token masked and the next line kept", in, got)
		}
	}
	// A token wrapped over two lines is still joined.
	if got := Secrets("ghp_abcdef\nABCDEF1234567890abcdef rest"); strings.Contains(got, "ABCDEF1234567890abcdef") {
		t.Errorf("a wrapped token: %q", got)
	}
}
