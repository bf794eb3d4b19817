package terminal

import "strings"

// Expansions inside a word: parameters, command and arithmetic
// substitutions, process substitutions and ANSI-C strings. They make the
// word's value unknown until the shell runs it.

// expansion reads $…, `…`, <(…) or >(…) at l.i. Expansions make the word
// dynamic; the command lines inside substitutions are kept.
func (l *lexer) expansion(w *word, val *strings.Builder) {
	start := l.i
	c := l.src[l.i]
	rest := l.src[l.i:]
	switch {
	case c == '`':
		end := l.closing(l.i+1, '`')
		if end < 0 {
			l.open = true
			return
		}
		w.subs = append(w.subs, l.src[l.i+1:end])
		l.i = end + 1
	case strings.HasPrefix(rest, "$'"):
		end := l.closingANSI(l.i + 2)
		if end < 0 {
			l.open = true
			return
		}
		val.WriteString(l.src[l.i+2 : end]) // escapes left as written
		l.i = end + 1
		return
	case strings.HasPrefix(rest, "$(("), strings.HasPrefix(rest, "$("), c == '<', c == '>':
		open := l.i + 2
		if strings.HasPrefix(rest, "$((") {
			open = l.i + 3
		}
		end := l.parens(open)
		if end < 0 {
			l.open = true
			return
		}
		if !strings.HasPrefix(rest, "$((") {
			w.subs = append(w.subs, l.src[open:end])
		}
		l.i = end + 1
		if strings.HasPrefix(rest, "$((") && l.i < len(l.src) && l.src[l.i] == ')' {
			l.i++
		}
	case strings.HasPrefix(rest, "${"):
		end := l.closing(l.i+2, '}')
		if end < 0 {
			l.open = true
			return
		}
		l.i = end + 1
	case c == '$' && len(rest) > 1 && (isNameByte(rest[1]) || strings.IndexByte("@*#?$!-0123456789", rest[1]) >= 0):
		l.i += 2
		if isNameByte(rest[1]) && !(rest[1] >= '0' && rest[1] <= '9') {
			for l.i < len(l.src) && isNameByte(l.src[l.i]) {
				l.i++
			}
		}
	default: // a lone $
		val.WriteByte(c)
		l.i++
		return
	}
	w.dynamic = true
	val.WriteString(l.src[start:l.i])
}

// closing returns the index of the first unescaped delim from i, or -1;
// inside ${…} single-quoted parts are skipped.
func (l *lexer) closing(i int, delim byte) int {
	for ; i < len(l.src); i++ {
		switch c := l.src[i]; {
		case c == delim:
			return i
		case c == '\\':
			i++
		case c == '\'' && delim == '}':
			end := strings.IndexByte(l.src[i+1:], '\'')
			if end < 0 {
				return -1
			}
			i += end + 1
		}
	}
	return -1
}

// closingANSI returns the index of the quote that ends a $'…' string
// whose text starts at i, or -1.
func (l *lexer) closingANSI(i int) int {
	for ; i < len(l.src); i++ {
		switch l.src[i] {
		case '\\':
			i++
		case '\'':
			return i
		}
	}
	return -1
}

// parens returns the index of the ')' that closes a '(' opened just
// before i, following nested parentheses and quotes, or -1.
func (l *lexer) parens(i int) int {
	depth := 1
	for ; i < len(l.src); i++ {
		switch c := l.src[i]; c {
		case '\\':
			i++
		case '\'', '"', '`':
			end := l.closing(i+1, c)
			if end < 0 {
				return -1
			}
			i = end
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
