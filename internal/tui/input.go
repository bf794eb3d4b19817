package tui

import (
	"strings"
	"unicode/utf8"
)

// input is the multi-line text being typed, with a cursor at a rune
// offset. It holds the text as typed; it is escaped when drawn.
type input struct {
	text   []rune
	cursor int
}

func (in *input) String() string { return string(in.text) }

func (in *input) set(s string) {
	in.text = []rune(s)
	in.cursor = len(in.text)
}

func (in *input) insert(s string) {
	rs := []rune(s)
	in.text = append(in.text[:in.cursor], append(rs, in.text[in.cursor:]...)...)
	in.cursor += len(rs)
}

func (in *input) backspace() {
	if in.cursor == 0 {
		return
	}
	in.text = append(in.text[:in.cursor-1], in.text[in.cursor:]...)
	in.cursor--
}

func (in *input) left()  { in.cursor = max(0, in.cursor-1) }
func (in *input) right() { in.cursor = min(len(in.text), in.cursor+1) }

// lines returns the text's lines with the cursor drawn as a reversed cell.
func (in *input) lines() []string {
	before, after := string(in.text[:in.cursor]), string(in.text[in.cursor:])
	cur := " "
	if after != "" {
		r, n := utf8.DecodeRuneInString(after)
		cur, after = string(r), after[n:]
		if r == '\n' {
			cur, after = " ", "\n"+after
		}
	}
	var ls []string
	bl := strings.Split(before, "\n")
	al := strings.Split(after, "\n")
	for i, l := range bl {
		ls = append(ls, escapeLines(l)[0])
		if i == len(bl)-1 {
			ls[len(ls)-1] += sgrStatus + escapeLines(cur)[0] + sgrReset + escapeLines(al[0])[0]
		}
	}
	for _, l := range al[1:] {
		ls = append(ls, escapeLines(l)[0])
	}
	return ls
}
