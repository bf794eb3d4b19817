package config

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// Positions are worked out from the text itself rather than taken from
// the parser's tokens, whose columns skip tabs and whose plain values drop
// them: the in-place editor needs the exact column of a value, and a tab
// inside a value is part of it. Each token carries the text it was read
// from (with the blanks before it), so walking the tokens in order walks
// the file.

// textPos is where a token's own text starts: line and column (in
// characters) from 1, and byte offset.
type textPos struct {
	line, col, off int
}

// tokenPositions finds each token of tokens in data.
func tokenPositions(data []byte, tokens token.Tokens) map[*token.Token]textPos {
	var starts []int // byte offset of each line
	starts = append(starts, 0)
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	out := make(map[*token.Token]textPos, len(tokens))
	at := 0
	for _, tk := range tokens {
		o := tk.Origin
		own := strings.TrimLeft(o, " \t\r\n")
		start := -1
		switch {
		case own == "":
			continue
		case bytes.HasPrefix(data[at:], []byte(o)):
			start = at + len(o) - len(own)
		default:
			if i := bytes.Index(data[at:], []byte(own)); i >= 0 {
				start = at + i
			}
		}
		if start < 0 {
			continue
		}
		line := sort.Search(len(starts), func(i int) bool { return starts[i] > start })
		col := utf8.RuneCount(data[starts[line-1]:start]) + 1
		out[tk] = textPos{line: line, col: col, off: start}
		at = start + len(own)
	}
	return out
}

// pos is where tk starts: found in the text, or as the parser says for a
// token it made up (such as the null of an empty value).
func (c *converter) pos(tk *token.Token) (line, col int) {
	if p, ok := c.positions[tk]; ok {
		return p.line, p.col
	}
	return tk.Position.Line, tk.Position.Column
}

// plainValue is the value of a plain scalar read from its text: lines
// trimmed and folded into one, a blank line standing for a line break.
// The parser's own value is kept unless the two differ only in tabs,
// which the parser drops.
func plainValue(tk *token.Token) string {
	var b strings.Builder
	blanks, started := 0, false
	for _, line := range strings.Split(tk.Origin, "\n") {
		line = strings.Trim(line, " \t\r")
		switch {
		case line == "":
			blanks++
		case !started:
			b.WriteString(line)
			started, blanks = true, 0
		default:
			if blanks == 0 {
				b.WriteByte(' ')
			}
			for ; blanks > 0; blanks-- {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
		if !started {
			blanks = 0
		}
	}
	v := b.String()
	if v != tk.Value && strings.ReplaceAll(v, "\t", "") == strings.ReplaceAll(tk.Value, "\t", "") {
		return v
	}
	return tk.Value
}
