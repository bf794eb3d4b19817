package markdown

import (
	"slices"
	"strings"
)

// cell is one character of rendered text: the rune, the columns it takes
// and the elements it belongs to. Inline content is laid out as a slice of
// cells so that wrapping counts display columns and each line can carry its
// own SGR.
type cell struct {
	r rune
	w int8
	a attr
}

// cells is inline text under construction.
type cells []cell

// add appends s with attributes a, turning control characters into their
// visible form (marked aEscape) and tabs into spaces.
func (cs *cells) add(s string, a attr) {
	*cs = slices.Grow(*cs, len(s))
	for i := 0; i < len(s); {
		r, size := decodeRune(s[i:])
		i += size
		cs.addRune(r, a)
	}
}

// addRune appends one rune; see add.
func (cs *cells) addRune(r rune, a attr) {
	switch r {
	case '\n':
		*cs = append(*cs, cell{r: '\n', a: a})
		return
	case '\t':
		r = ' '
	}
	if v, ok := visible(r); ok {
		for _, vr := range v {
			*cs = append(*cs, cell{r: vr, w: 1, a: a | aEscape})
		}
		return
	}
	*cs = append(*cs, cell{r: r, w: int8(runeWidth(r)), a: a})
}

// width returns the columns the cells take.
func (cs cells) width() int {
	n := 0
	for _, c := range cs {
		n += int(c.w)
	}
	return n
}

// trimRight drops trailing spaces.
func (cs cells) trimRight() cells {
	for len(cs) > 0 && cs[len(cs)-1].r == ' ' {
		cs = cs[:len(cs)-1]
	}
	return cs
}

// wrap breaks cs into lines of at most width columns: at spaces, between
// wide (CJK) characters, at newline cells, and inside a word only when the
// word alone is wider than the line. A character wider than the whole line
// gets a line of its own.
func wrap(cs cells, width int) []cells {
	width = max(width, 1)
	var lines []cells
	start, col := 0, 0
	brkEnd, brkNext := -1, -1
	for i := 0; i < len(cs); {
		c := cs[i]
		if c.r == '\n' {
			lines = append(lines, cs[start:i].trimRight())
			start, col, brkEnd = i+1, 0, -1
			i++
			continue
		}
		if c.w > 0 && i > start && (breaksAnywhere(c) || breaksAnywhere(cs[i-1])) && cs[i-1].r != ' ' {
			brkEnd, brkNext = i, i
		}
		if col+int(c.w) > width && col > 0 && c.r != ' ' {
			end, next := i, i
			if brkEnd > start {
				end, next = brkEnd, brkNext
			}
			lines = append(lines, cs[start:end].trimRight())
			for next < len(cs) && cs[next].r == ' ' {
				next++
			}
			start, brkEnd = next, -1
			if start > i {
				i = start
			}
			col = cs[start:i].width()
			continue
		}
		if c.r == ' ' {
			brkEnd, brkNext = i, i+1
		}
		col += int(c.w)
		i++
	}
	if start < len(cs) || len(lines) == 0 {
		lines = append(lines, cs[start:].trimRight())
	}
	return lines
}

// breaksAnywhere reports whether a line may break before or after c without
// a space: true for wide characters (Chinese and Japanese run words
// together), false for Hangul, which separates words with spaces.
func breaksAnywhere(c cell) bool {
	if c.w != 2 {
		return false
	}
	r := c.r
	hangul := (r >= 0x1100 && r <= 0x11ff) || (r >= 0x3130 && r <= 0x318f) || (r >= 0xac00 && r <= 0xd7a3)
	return !hangul
}

// painter turns cells into ANSI text, remembering the SGR of each set of
// attributes it has seen.
type painter struct {
	style *Style
	seen  []attr
	sgrs  []string
}

// sgr returns the SGR parameters for a.
func (p *painter) sgr(a attr) string {
	if a == 0 {
		return ""
	}
	for i, s := range p.seen {
		if s == a {
			return p.sgrs[i]
		}
	}
	s := p.style.sgr(a)
	p.seen = append(p.seen, a)
	p.sgrs = append(p.sgrs, s)
	return s
}

// paint renders one line. Every line closes its own SGR, so lines can be
// prefixed, padded, cut out or redrawn one at a time.
func (p *painter) paint(line cells) string {
	var b strings.Builder
	b.Grow(len(line)*3 + 16)
	cur := ""
	for _, c := range line {
		if s := p.sgr(c.a); s != cur {
			if cur != "" {
				b.WriteString("\x1b[0m")
			}
			if s != "" {
				b.WriteString("\x1b[")
				b.WriteString(s)
				b.WriteByte('m')
			}
			cur = s
		}
		b.WriteRune(c.r)
	}
	if cur != "" {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// plain renders s, which the renderer wrote itself (a border, a bar) and
// so holds no control character, with attributes a.
func (p *painter) plain(s string, a attr) string {
	sgr := p.sgr(a)
	if sgr == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// paintAll renders each line.
func (p *painter) paintAll(lines []cells) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p.paint(l)
	}
	return out
}

// styled returns s as cells with attributes a.
func styled(s string, a attr) cells {
	var cs cells
	cs.add(s, a)
	return cs
}
