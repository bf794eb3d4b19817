package files

import (
	"strings"
	"unicode/utf8"
)

// eightBitNote tells the model a file was not UTF-8 and how it was read.
const eightBitNote = "the file is not UTF-8; it was decoded as Windows-1252 (Latin-1), the usual 8-bit text encoding. If characters look wrong, it may be another 8-bit encoding (KOI8-R, GBK, Shift-JIS): convert it with iconv in the terminal"

// isEightBit reports whether head, which is not UTF-8 and holds no NUL, is
// still text in an 8-bit encoding: almost no control bytes besides the
// whitespace ones. Old CSV exports, logs and source files are often
// Latin-1 or Windows-1252, and calling them binary leaves the model with
// no way to read them.
func isEightBit(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	controls := 0
	for _, c := range head {
		switch {
		case c == 0:
			return false
		case c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x1b:
		case c < 0x20 || c == 0x7f:
			controls++
		}
	}
	return controls*100 <= len(head) // at most 1%
}

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 to their characters;
// zero marks the five it leaves undefined. Latin-1 has C1 controls there,
// which text files do not hold, so reading them as Windows-1252 (curly
// quotes, the euro sign) is right for both.
var cp1252 = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// decode8 decodes s, Windows-1252 bytes, to UTF-8; an undefined byte
// becomes U+FFFD.
func decode8(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80:
			b.WriteByte(c)
		case c < 0xa0:
			r := cp1252[c-0x80]
			if r == 0 {
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			b.WriteRune(rune(c)) // Latin-1 is Unicode's first 256 code points
		}
	}
	return b.String()
}
