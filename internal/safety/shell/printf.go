package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// echo -e, printf and printf -v turn escapes into characters, so
// printf '\x72\x6d -rf /' | sh runs rm. The analysis formats their text
// the way they would.

// formatPrintf returns what printf FORMAT ARGS prints: the format's
// escapes decoded and its conversions filled from args, the format
// reused while arguments remain. Widths and precisions are ignored: they
// only pad.
func formatPrintf(format string, args []string) string {
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\':
				n := decodeEscape(&b, format[i+1:], false)
				i += n
			case c == '%' && i+1 < len(format):
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
					j++
				}
				if j >= len(format) {
					b.WriteString(format[i:])
					i = len(format)
					continue
				}
				verb := format[j]
				i = j
				if verb == '%' {
					b.WriteByte('%')
					continue
				}
				arg := ""
				if used < len(args) {
					arg = args[used]
				}
				used++
				switch verb {
				case 'b':
					writeEscaped(&b, arg)
				case 'c':
					if arg != "" {
						_, n := utf8.DecodeRuneInString(arg)
						b.WriteString(arg[:n])
					}
				default: // s, q, d, x and the rest: the argument's own text
					b.WriteString(arg)
				}
			default:
				b.WriteByte(c)
			}
		}
		if used == 0 || used >= len(args) {
			return b.String()
		}
		args = args[used:]
	}
}

// writeEscaped writes s with its backslash escapes decoded, as echo -e and
// printf %b do.
func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i += decodeEscape(b, s[i+1:], true)
	}
}

// decodeEscape writes the character a backslash escape stands for; s is
// what follows the backslash. It returns how many bytes of s it used.
// echoStyle selects echo's octal form \0NNN over printf's \NNN.
func decodeEscape(b *strings.Builder, s string, echoStyle bool) int {
	if s == "" {
		b.WriteByte('\\')
		return 0
	}
	if ch, ok := letterEscape(s[0]); ok {
		b.WriteByte(ch)
		return 1
	}
	switch c := s[0]; c {
	case '\\':
		b.WriteByte('\\')
	case 'x', 'u', 'U':
		digits := 2
		if c == 'u' {
			digits = 4
		} else if c == 'U' {
			digits = 8
		}
		n := 1
		for n <= digits && n < len(s) && isHex(s[n]) {
			n++
		}
		if n == 1 {
			b.WriteByte('\\')
			b.WriteByte(c)
			return 1
		}
		v, _ := strconv.ParseUint(s[1:n], 16, 32)
		if c == 'x' {
			b.WriteByte(byte(v))
		} else if utf8.ValidRune(rune(v)) {
			b.WriteRune(rune(v))
		}
		return n
	case '0', '1', '2', '3', '4', '5', '6', '7':
		start, limit := 0, 3
		if echoStyle && c == '0' {
			start, limit = 1, 4
		}
		n := start
		for n < limit && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			n++
		}
		v, _ := strconv.ParseUint("0"+s[start:n], 8, 32)
		b.WriteByte(byte(v))
		return n
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return 1
}

// letterEscape returns the control character a backslash and a letter
// stand for (\n, \t, \e …) in echo -e, printf and $'…'.
func letterEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return 7, true
	case 'b':
		return 8, true
	case 'e', 'E':
		return 0x1b, true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	}
	return 0, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }
