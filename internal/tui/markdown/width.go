package markdown

import (
	"unicode"

	"golang.org/x/text/width"
)

// runeWidth returns the number of terminal columns r takes: 2 for East Asian
// wide and fullwidth characters (CJK ideographs, kana, hangul, fullwidth
// forms, most emoji), 0 for combining marks that draw over the character
// before them, and 1 otherwise. Wrapping counts columns, not bytes or runes,
// so that a line of Chinese text fits the same width as a line of English.
func runeWidth(r rune) int {
	if r < 0x300 {
		return 1
	}
	if unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200B || r == 0x200C || r == 0x200D {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// StringWidth returns the number of terminal columns s takes once rendered,
// skipping the SGR sequences that Render writes; callers laying out rendered
// text beside other text (a status bar, a tool card) measure it with this.
func StringWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i = skipSGR(s, i)
			continue
		}
		r, size := decodeRune(s[i:])
		n += runeWidth(r)
		i += size
	}
	return n
}

// skipSGR returns the index just past the escape sequence starting at s[i]:
// a CSI sequence up to its final byte, or the lone ESC.
func skipSGR(s string, i int) int {
	j := i + 1
	if j >= len(s) || s[j] != '[' {
		return j
	}
	for j++; j < len(s); j++ {
		if s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1
		}
	}
	return j
}
