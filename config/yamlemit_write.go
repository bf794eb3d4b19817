package config

import "unicode/utf8"

// The writers of each scalar style, and the character classes the
// emitter (see yamlemit.go) decides by. Lines are never folded.

func (e *emitter) writePlain(v string) {
	if v != "" && !e.whitespace {
		e.put(' ')
	}
	breaks := false
	for i := 0; i < len(v); {
		switch {
		case v[i] == ' ':
			i = e.writeChar(v, i)
		case isBreakAt(v, i):
			if !breaks && v[i] == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(v, i)
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			i = e.writeChar(v, i)
			e.indention, breaks = false, false
		}
	}
	if v != "" {
		e.whitespace = false
	}
	e.indention = false
}

func (e *emitter) writeSingleQuoted(v string) {
	e.writeIndicator("'", true, false, false)
	breaks := false
	for i := 0; i < len(v); {
		switch {
		case v[i] == ' ':
			i = e.writeChar(v, i)
		case isBreakAt(v, i):
			if !breaks && v[i] == '\n' {
				e.putBreak()
			}
			i = e.writeBreak(v, i)
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if v[i] == '\'' {
				e.put('\'')
			}
			i = e.writeChar(v, i)
			e.indention, breaks = false, false
		}
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace, e.indention = false, false
}

// shortEscape is the letter written after a backslash for r, or 0 when r
// is written as a hexadecimal code.
func shortEscape(r rune) byte {
	switch r {
	case 0x00:
		return '0'
	case 0x07:
		return 'a'
	case 0x08:
		return 'b'
	case 0x09:
		return 't'
	case 0x0A:
		return 'n'
	case 0x0B:
		return 'v'
	case 0x0C:
		return 'f'
	case 0x0D:
		return 'r'
	case 0x1B:
		return 'e'
	case '"', '\\':
		return byte(r)
	case 0x85:
		return 'N'
	case 0xA0:
		return '_'
	case 0x2028:
		return 'L'
	case 0x2029:
		return 'P'
	}
	return 0
}

func (e *emitter) writeDoubleQuoted(v string) {
	e.writeIndicator("\"", true, false, false)
	bom := len(v) >= 3 && v[0] == 0xEF && v[1] == 0xBB && v[2] == 0xBF
	for i := 0; i < len(v); {
		if !isPrintableAt(v, i) || bom || isBreakAt(v, i) || v[i] == '"' || v[i] == '\\' {
			r, w := utf8.DecodeRuneInString(v[i:])
			i += max(w, 1)
			e.put('\\')
			if c := shortEscape(r); c != 0 {
				e.put(c)
				continue
			}
			digits := 8
			switch {
			case r <= 0xFF:
				e.put('x')
				digits = 2
			case r <= 0xFFFF:
				e.put('u')
				digits = 4
			default:
				e.put('U')
			}
			for k := (digits - 1) * 4; k >= 0; k -= 4 {
				e.put("0123456789ABCDEF"[(r>>uint(k))&0x0F])
			}
			continue
		}
		i = e.writeChar(v, i)
	}
	e.writeIndicator("\"", false, false, false)
	e.whitespace, e.indention = false, false
}

// blockHints writes the indentation and chomping indicators after | or >.
func (e *emitter) blockHints(v string) {
	if at(v, 0) == ' ' || isBreakAt(v, 0) {
		e.writeIndicator(string(rune('0'+e.bestIndent)), false, false, false)
	}
	chomp := ""
	if v == "" {
		chomp = "-"
	} else {
		i := len(v) - 1
		for i > 0 && v[i]&0xC0 == 0x80 {
			i--
		}
		switch {
		case !isBreakAt(v, i):
			chomp = "-"
		case i == 0:
			chomp = "+"
		default:
			i--
			for i > 0 && v[i]&0xC0 == 0x80 {
				i--
			}
			if isBreakAt(v, i) {
				chomp = "+"
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}

func (e *emitter) writeLiteral(v string) {
	e.writeIndicator("|", true, false, false)
	e.blockHints(v)
	e.processLineComment(true)
	e.whitespace = true
	breaks := true
	for i := 0; i < len(v); {
		if isBreakAt(v, i) {
			i = e.writeBreak(v, i)
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
		}
		i = e.writeChar(v, i)
		e.indention, breaks = false, false
	}
}

func (e *emitter) writeFolded(v string) {
	e.writeIndicator(">", true, false, false)
	e.blockHints(v)
	e.processLineComment(true)
	e.whitespace = true
	breaks, leadingSpaces := true, true
	for i := 0; i < len(v); {
		if isBreakAt(v, i) {
			if !breaks && !leadingSpaces && v[i] == '\n' {
				k := 0
				for k < len(v) && isBreakAt(v, k) {
					k += max(charWidth(v[k]), 1)
				}
				if !isBlankzAt(v, k) {
					e.putBreak()
				}
			}
			i = e.writeBreak(v, i)
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
			leadingSpaces = isBlankAt(v, i)
		}
		i = e.writeChar(v, i)
		e.indention, breaks = false, false
	}
}

// writeTagContent writes a tag's suffix, percent-encoding what a tag
// cannot hold.
func (e *emitter) writeTagContent(v string) {
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case isAlphaAt(v, i) || c != 0 && containsByte(";/?:@&=+$,_.~*'()[]", c):
			i = e.writeChar(v, i)
		default:
			for k := max(charWidth(c), 1); k > 0 && i < len(v); k-- {
				e.put('%')
				e.put("0123456789ABCDEF"[v[i]>>4])
				e.put("0123456789ABCDEF"[v[i]&0x0F])
				i++
			}
		}
	}
	e.whitespace, e.indention = false, false
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// at is s[i], or 0 past the end.
func at(s string, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

// charWidth is the length of the UTF-8 sequence that starts with b.
func charWidth(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func isAlphaAt(s string, i int) bool {
	c := at(s, i)
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-'
}

// isPrintableAt reports whether the character at s[i] may appear in a
// plain or quoted scalar unescaped (characters beyond U+FFFF may not).
func isPrintableAt(s string, i int) bool {
	c, c1, c2 := at(s, i), at(s, i+1), at(s, i+2)
	return c == 0x0A || c >= 0x20 && c <= 0x7E || c == 0xC2 && c1 >= 0xA0 || c > 0xC2 && c < 0xED ||
		c == 0xED && c1 < 0xA0 || c == 0xEE ||
		c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF))
}

func isBreakAt(s string, i int) bool {
	c, c1, c2 := at(s, i), at(s, i+1), at(s, i+2)
	return c == '\r' || c == '\n' || c == 0xC2 && c1 == 0x85 || c == 0xE2 && c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9)
}

func isBlankAt(s string, i int) bool {
	c := at(s, i)
	return c == ' ' || c == '\t'
}

func isBlankzAt(s string, i int) bool {
	return isBlankAt(s, i) || isBreakAt(s, i) || at(s, i) == 0
}
