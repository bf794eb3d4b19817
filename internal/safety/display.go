package safety

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An approval prompt shows a person the model's command, so the command
// must not be able to lie about itself there: escape sequences could
// redraw the prompt to show "ls -la /tmp" while rm -rf runs, a carriage
// return could overwrite the line, a right-to-left override could reverse
// it, and a long harmless prefix could push the dangerous part past
// where the prompt cuts. Display escapes every character that is not
// plainly visible, and cuts only around the part of the command the rule
// matched, never into it.

// Display returns the request's command as an approval prompt shows it,
// on one line of about width characters: control characters, escape
// sequences and invisible format characters are written as escapes
// (\x1b, \r, \n, \u202e), and a command longer than width is cut around
// the part of it the rule matched (Verdict.Match), which is always shown
// whole, each cut saying how many characters it took.
//
// match is that part, escaped the same way, when it is not to be found in
// command as written — a payload the command decodes, a command it builds
// from variables — and "" otherwise; a prompt shows it beside the command.
func (r Request) Display(width int) (command, match string) {
	cmd := []rune(Escape(r.Command))
	m := Escape(r.Verdict.Match)
	at := -1
	if m != "" {
		if i := strings.Index(string(cmd), m); i >= 0 {
			at = utf8.RuneCountInString(string(cmd)[:i])
		}
	}
	if len(cmd) <= width {
		if at < 0 {
			return string(cmd), m
		}
		return string(cmd), ""
	}
	if at < 0 {
		return window(cmd, 0, width), m
	}
	mlen := utf8.RuneCountInString(m)
	span := max(width, mlen)
	start := at - (span-mlen)/2
	start = max(0, min(start, len(cmd)-span))
	return window(cmd, start, span), ""
}

// window returns n runes of s from start, saying how much was cut before
// and after.
func window(s []rune, start, n int) string {
	end := min(start+n, len(s))
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[… %d characters cut …] ", start)
	}
	b.WriteString(string(s[start:end]))
	if end < len(s) {
		fmt.Fprintf(&b, " [… %d characters cut …]", len(s)-end)
	}
	return b.String()
}

// Escape returns s with every character a terminal would not show as
// itself written as an escape: \t, \n and \r; \xHH for other control
// characters (ESC is \x1b) and for bytes that are not UTF-8; \uHHHH for
// C1 controls, invisible format characters (zero-width spaces, bidi
// overrides) and spaces other than the plain one. Nothing in the result
// moves the cursor, changes colours or reorders text.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape is Escape's fast path: most commands are printable ASCII.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return false
}

// hidden reports whether a non-ASCII rune does not show as itself: a C1
// control, a format character, a line or paragraph separator, or a space
// that is not the plain one.
func hidden(r rune) bool {
	return r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) && r != ' ' || !unicode.IsGraphic(r)
}
