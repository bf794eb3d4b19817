package sqlite

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet shape: the first match with about snippetTokens tokens (words,
// or single CJK characters) of context on each side, every match inside
// marked. Line breaks and runs of white space become one space, so a
// snippet is one line.
const (
	markOpen      = ">>>"
	markClose     = "<<<"
	ellipsis      = "..."
	snippetTokens = 8
)

// snippet cuts the snippet of c from the first of its columns (content,
// tool calls, tool name) holding a match. When the text read holds none
// (the match lies beyond scoreBytes, or the index folded a character the
// matcher did not), it shows the text's beginning.
func snippet(c *candidate, ms []matcher) string {
	for _, col := range c.cols {
		start, end := -1, -1
		for _, m := range ms {
			if s, e := m.next(col.lower, 0); s >= 0 && (start < 0 || s < start) {
				start, end = s, e
			}
		}
		if start >= 0 {
			return cut(col, ms, tokensBack(col.orig, start, snippetTokens), tokensOn(col.orig, end, snippetTokens))
		}
	}
	for _, col := range c.cols {
		if col.orig != "" {
			return cut(col, nil, 0, tokensOn(col.orig, 0, 2*snippetTokens))
		}
	}
	return ""
}

// cut renders col.orig[from:to] (byte offsets), marking matches, with
// ellipses where text was left out. Neither an edge nor a mark falls
// inside a run of the characters keys and tokens are made of (see
// runByte): a mark or a cut inside a secret would split it, and the
// redactor, which sees the snippet after, would miss the pieces.
func cut(col folded, ms []matcher, from, to int) string {
	from, to = runStart(col.orig, from, from-maxRun), runEnd(col.orig, to, to+maxRun)
	marks := markRuns(col, ms, from, &to)
	var b strings.Builder
	if from > 0 {
		b.WriteString(ellipsis)
	}
	space := false
	for i := from; i < to; {
		if len(marks) > 0 && marks[0][0] == i {
			b.WriteString(markOpen + col.orig[i:marks[0][1]] + markClose)
			i, space, marks = marks[0][1], false, marks[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(col.orig[i:])
		switch {
		case unicode.IsSpace(r):
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
		default:
			b.WriteString(col.orig[i : i+size])
			space = false
		}
		i += size
	}
	text := strings.TrimRight(b.String(), " ")
	if to < len(col.orig) {
		text += ellipsis
	}
	return text
}

// maxRun bounds how far an edge or a mark is moved to the end of a run:
// far enough for an API key or a JWT, not for a whole base64 blob.
const maxRun = 1024

// markRuns returns the ranges to mark in col.orig[from:*to], in order and
// apart: each match, widened to the run it lies in. A match running past
// *to moves it.
func markRuns(col folded, ms []matcher, from int, to *int) [][2]int {
	var marks [][2]int
	for i := from; i < *to; {
		end := -1
		for _, m := range ms {
			end = max(end, m.at(col.lower, i))
		}
		if end <= i {
			_, size := utf8.DecodeRuneInString(col.orig[i:])
			i += size
			continue
		}
		s, e := runStart(col.orig, i, max(from, i-maxRun)), runEnd(col.orig, end, end+maxRun)
		if n := len(marks); n > 0 && s <= marks[n-1][1] {
			marks[n-1][1] = max(marks[n-1][1], e)
		} else {
			marks = append(marks, [2]int{s, e})
		}
		i, *to = e, max(*to, e)
	}
	return marks
}

// runByte reports whether c belongs to the runs marks and edges keep
// whole: printable ASCII but white space and the quotes, brackets and
// separators that end a token in code, JSON and prose.
func runByte(c byte) bool {
	return c > ' ' && c < 0x7f && !strings.ContainsRune("\"'`<>()[]{},;", rune(c))
}

// runStart moves i back to the start of the run it lies in, not before
// floor.
func runStart(s string, i, floor int) int {
	for i > max(floor, 0) && runByte(s[i-1]) && (i == len(s) || runByte(s[i])) {
		i--
	}
	return i
}

// runEnd moves i on to the end of the run it lies in, not past ceil.
func runEnd(s string, i, ceil int) int {
	for i < min(ceil, len(s)) && i > 0 && runByte(s[i-1]) && runByte(s[i]) {
		i++
	}
	return i
}

// tokensBack returns where the n tokens (words, or single CJK
// characters) before byte i of s begin.
func tokensBack(s string, i, n int) int {
	last := func() rune {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		return r
	}
	back := func() {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	for ; n > 0 && i > 0; n-- {
		for i > 0 && !isWordRune(last()) {
			back()
		}
		if i > 0 && isCJK(last()) {
			back()
			continue
		}
		for i > 0 && isWordRune(last()) && !isCJK(last()) {
			back()
		}
	}
	return i
}

// tokensOn returns where the n tokens after byte i of s end.
func tokensOn(s string, i, n int) int {
	next := func() (rune, int) { return utf8.DecodeRuneInString(s[i:]) }
	for ; n > 0 && i < len(s); n-- {
		for i < len(s) {
			r, size := next()
			if isWordRune(r) {
				break
			}
			i += size
		}
		if r, size := next(); i < len(s) && isCJK(r) {
			i += size
			continue
		}
		for i < len(s) {
			r, size := next()
			if !isWordRune(r) || isCJK(r) {
				break
			}
			i += size
		}
	}
	return i
}
