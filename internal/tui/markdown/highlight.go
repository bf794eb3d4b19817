package markdown

import "strings"

// highlight returns code as cells, its keywords, strings, comments and
// numbers marked for the language lang. A language it does not know is
// returned plain. The lexer works on the whole block, so comments and
// strings that span lines stay marked.
func highlight(code, lang string) cells {
	l, ok := lexerFor(strings.ToLower(lang))
	cs := make(cells, 0, len(code))
	if !ok {
		cs.add(code, aCodeText)
		return cs
	}
	for i := 0; i < len(code); {
		n, a := l.token(code, i)
		cs.add(code[i:i+n], a)
		i += n
	}
	return cs
}

// token returns the length and class of the token that starts at s[i].
func (l *lexer) token(s string, i int) (int, attr) {
	rest := s[i:]
	if l.blockOpen != "" && strings.HasPrefix(rest, l.blockOpen) {
		end := strings.Index(rest[len(l.blockOpen):], l.blockClose)
		if end < 0 {
			return len(rest), aComment
		}
		return len(l.blockOpen) + end + len(l.blockClose), aComment
	}
	for _, lc := range []string{l.line1, l.line2} {
		if lc != "" && strings.HasPrefix(rest, lc) && (lc != "#" || i == 0 || isSpace(s[i-1])) {
			return lineEnd(rest), aComment
		}
	}
	c := rest[0]
	if strings.IndexByte(l.quotes, c) >= 0 {
		return quoted(rest, l.triple), aString
	}
	if isDigit(c) && (i == 0 || !isIdent(s[i-1])) {
		n := 1
		for n < len(rest) && (isIdent(rest[n]) || rest[n] == '.') {
			n++
		}
		return n, aNumber
	}
	if isIdent(c) {
		n := 1
		for n < len(rest) && isIdent(rest[n]) {
			n++
		}
		word := rest[:n]
		if l.yamlKeys && strings.HasPrefix(rest[n:], ":") && keyPosition(s, i) {
			return n, aKeyword
		}
		if l.isKeyword(word) {
			return n, aKeyword
		}
		return n, aCodeText
	}
	_, size := decodeRune(rest)
	return size, aCodeText
}

// quoted returns the length of the string literal at the start of s: to the
// matching quote, past backslash escapes, ending at the line's end unless
// the quote is a backtick or a tripled quote (Python, template strings).
func quoted(s string, triple bool) int {
	q := s[0]
	if triple && len(s) >= 3 && s[1] == q && s[2] == q {
		end := strings.Index(s[3:], s[:3])
		if end < 0 {
			return len(s)
		}
		return end + 6
	}
	for n := 1; n < len(s); n++ {
		switch s[n] {
		case '\\':
			n++
		case q:
			return n + 1
		case '\n':
			if q != '`' {
				return n
			}
		}
	}
	return len(s)
}

// lineEnd returns the index of the newline ending the line s starts, or
// len(s).
func lineEnd(s string) int {
	if n := strings.IndexByte(s, '\n'); n >= 0 {
		return n
	}
	return len(s)
}

// keyPosition reports whether s[i] starts a line's first word, after
// indentation and list dashes: where a YAML key stands.
func keyPosition(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case '\n':
			return true
		case ' ', '-':
		default:
			return false
		}
	}
	return true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&'
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdent(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
