package markdown

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// visible returns how the control character r is shown, and false when r is
// an ordinary printable character. A reply is model output, possibly copied
// from a poisoned page: a raw ESC, CSI, OSC 8 hyperlink, carriage return or
// bidi override in it could move the cursor, clear the screen, forge an
// approval prompt or reorder what the user reads. So every C0 and C1 control
// (other than the newline, which the parser has already consumed), DEL, the
// Unicode format characters (bidi overrides and isolates, invisible tags,
// the byte-order mark) and the line and paragraph separators are drawn as
// visible symbols instead. Zero-width joiners stay: emoji sequences need them.
func visible(r rune) (string, bool) {
	switch {
	case r < 0x20:
		return string(rune(0x2400 + r)), true // ␀…␟, ESC as ␛
	case r == 0x7f:
		return "␡", true
	case r < 0x80:
		return "", false
	case r <= 0x9f, r == 0x2028, r == 0x2029:
		return fmt.Sprintf("<U+%04X>", r), true
	case r == 0x200C || r == 0x200D:
		return "", false
	case unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("<U+%04X>", r), true
	}
	return "", false
}

// decodeRune decodes the first rune of s; invalid UTF-8 (a stream cut inside
// a character, or bytes that are not text) decodes to U+FFFD, one byte at a
// time, so that no stray byte reaches the terminal.
func decodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return utf8.RuneError, 1
	}
	return r, size
}
