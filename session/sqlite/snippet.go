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
// ellipses where text was left out.
func cut(col folded, ms []matcher, from, to int) string {
	var b strings.Builder
	if from > 0 {
		b.WriteString(ellipsis)
	}
	space := false
	for i := from; i < to; {
		end := -1
		for _, m := range ms {
			end = max(end, m.at(col.lower, i))
		}
		if end > i {
			b.WriteString(markOpen + col.orig[i:end] + markClose)
			i, to, space = end, max(to, end), false
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
