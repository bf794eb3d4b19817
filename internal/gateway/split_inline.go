package gateway

import "strings"

// maxSpan is the longest inline code span or link, in bytes, that Split
// keeps whole; longer ones would keep it from cutting where it should,
// and searching for their ends would make splitting slow on text full of
// unmatched brackets.
const maxSpan = 2048

// scanInline marks the inline code spans, emphases and links of
// text[from:to] to be avoided. None reaches past a blank line.
func (md *markdown) scanInline(text string, from, to int) {
	for i := from; i < to; {
		switch text[i] {
		case '\\':
			i += 2
		case '`':
			n := run(text, i, to, '`')
			if j := spanEnd(text, i+n, to, n); j > 0 {
				md.mark(i, j)
				i = j
			} else {
				i += n
			}
		case '[':
			if j := linkEnd(text, i, to); j > 0 {
				s := i
				if i > from && text[i-1] == '!' {
					s = i - 1
				}
				md.mark(s, j)
				i = j
			} else {
				i++
			}
		case '*', '_', '~':
			n := run(text, i, to, text[i])
			if j := emphasisEnd(text, from, i, n, to); j > 0 {
				md.mark(i, j)
				i = j
			} else {
				i += n
			}
		default:
			i++
		}
	}
}

// emphasisEnd returns the end of the emphasis (*em*, **strong**, _em_,
// __strong__, ***both***, ~~strike~~) whose opening run of n characters
// starts at i, or 0. As in CommonMark, an opening run is followed by no
// space and a closing one preceded by none, and an underscore inside a
// word (snake_case) neither opens nor closes.
func emphasisEnd(text string, from, i, n, to int) int {
	c := text[i]
	if n > 3 || c == '~' && n != 2 || i+n >= to || isSpace(text[i+n]) ||
		c == '_' && i > from && isWordByte(text[i-1]) {
		return 0
	}
	lim := limit(text, i+n, to)
	for j := i + n; j < lim; {
		if text[j] != c {
			j++
			continue
		}
		m := run(text, j, lim, c)
		if m == n && !isSpace(text[j-1]) && (c != '_' || j+m >= len(text) || !isWordByte(text[j+m])) {
			return j + m
		}
		j += m
	}
	return 0
}

// isWordByte reports whether c is a letter or digit of ASCII, or a byte
// of a multi-byte rune (taken as a letter).
func isWordByte(c byte) bool {
	return c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// run counts the bytes c from text[i] on, up to to.
func run(text string, i, to int, c byte) int {
	n := 0
	for i+n < to && text[i+n] == c {
		n++
	}
	return n
}

// limit returns where a span starting at from must end by: a blank line,
// maxSpan bytes on, or to.
func limit(text string, from, to int) int {
	to = min(to, from+maxSpan)
	if k := strings.Index(text[from:to], "\n\n"); k >= 0 {
		return from + k
	}
	return to
}

// spanEnd returns the end of the inline code span whose opening run of n
// backticks ends at from, or 0 when it is not closed.
func spanEnd(text string, from, to, n int) int {
	lim := limit(text, from, to)
	for i := from; i < lim; {
		if text[i] != '`' {
			i++
			continue
		}
		m := run(text, i, lim, '`')
		if m == n {
			return i + m
		}
		i += m
	}
	return 0
}

// linkEnd returns the end of the link [text](url) starting at i, or 0.
func linkEnd(text string, i, to int) int {
	lim := limit(text, i, to)
	k := strings.IndexByte(text[i+1:lim], ']')
	if k < 0 {
		return 0
	}
	k += i + 1
	if k+1 >= lim || text[k+1] != '(' {
		return 0
	}
	m := strings.IndexAny(text[k+2:lim], ")\n")
	if m < 0 || text[k+2+m] != ')' {
		return 0
	}
	return k + 2 + m + 1
}
