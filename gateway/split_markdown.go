package gateway

import (
	"sort"
	"strings"
)

// maxSpan is the longest inline code span or link, in bytes, that Split
// keeps whole; longer ones would keep it from cutting where it should,
// and searching for their ends would make splitting slow on text full of
// unmatched brackets.
const maxSpan = 2048

// markdown is what Split knows of a text's Markdown: its fenced code
// blocks and the places it should not cut.
type markdown struct {
	fences []fence
	// avoid[p] is set when a cut before text[p] would fall inside an
	// inline code span, a link or a fence line, or would leave an empty
	// code block behind.
	avoid []bool
	// worstClose is the longest closing fence line a cut may add.
	worstClose string
}

// fence is one fenced code block. Its region, from the newline that ends
// the opening line up to the start of the closing line, is where a cut
// must close and reopen the block.
type fence struct {
	open, openEnd        int // the opening line
	closeStart, closeEnd int // the closing line; len(text) for both when unclosed
	// marker is the run of backticks or tildes that opens the block;
	// line is its opening line without the indentation, as the next
	// chunk opens it again.
	marker, line string
}

// Cut tiers, best first.
const (
	tierParagraph = iota
	tierLine
	tierSpace
	tierHard
	tiers
)

// scanMarkdown finds the fenced code blocks, inline code spans and links
// of text.
func scanMarkdown(text string) *markdown {
	md := &markdown{avoid: make([]bool, len(text)+1)}
	var cur *fence
	seg := 0 // start of the text outside fences not yet scanned inline
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		switch {
		case cur == nil:
			if marker, _, ok := fenceOpen(line); ok {
				md.scanInline(text, seg, start)
				md.fences = append(md.fences, fence{open: start, openEnd: end, marker: marker, line: strings.TrimSpace(line)})
				cur = &md.fences[len(md.fences)-1]
			}
		case fenceClose(line, cur.marker):
			cur.closeStart, cur.closeEnd = start, end
			cur, seg = nil, end
		}
		start = end + 1
	}
	if cur != nil {
		cur.closeStart, cur.closeEnd = len(text), len(text)
	} else {
		md.scanInline(text, seg, len(text))
	}
	for _, f := range md.fences {
		md.mark(f.open, f.openEnd+1)
		md.mark(f.closeStart-2, f.closeEnd)
		if c := "\n" + f.marker; len(c) > len(md.worstClose) {
			md.worstClose = c
		}
	}
	return md
}

// mark sets avoid for the cuts strictly between from and to.
func (md *markdown) mark(from, to int) {
	for p := max(from+1, 0); p < to && p < len(md.avoid); p++ {
		md.avoid[p] = true
	}
}

// fenceOpen reports whether line opens a fenced code block: up to three
// spaces, then three or more backticks or tildes, then an info string
// (which, after backticks, holds none).
func fenceOpen(line string) (marker, info string, ok bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 || len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return "", "", false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	info = strings.TrimSpace(s[n:])
	if n < 3 || s[0] == '`' && strings.Contains(info, "`") {
		return "", "", false
	}
	return s[:n], info, true
}

// fenceClose reports whether line closes a block opened by marker: up to
// three spaces, at least as many of its characters, and nothing else.
func fenceClose(line, marker string) bool {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	n := 0
	for n < len(s) && s[n] == marker[0] {
		n++
	}
	return n >= len(marker) && strings.TrimSpace(s[n:]) == ""
}

// scanInline marks the inline code spans and links of text[from:to] to
// be avoided. Neither reaches past a blank line.
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
		default:
			i++
		}
	}
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

// fenceAt returns the block whose region holds p, or nil.
func (md *markdown) fenceAt(p int) *fence {
	i := sort.Search(len(md.fences), func(i int) bool { return md.fences[i].closeStart >= p })
	if i < len(md.fences) && md.fences[i].openEnd <= p {
		return &md.fences[i]
	}
	return nil
}

// choose picks where to cut a chunk that starts at pos and may end as
// late as e, and returns the cut and where the next chunk starts (after
// the whitespace the cut drops).
func (md *markdown) choose(text string, pos, e int) (cut, next int) {
	if e >= len(text) {
		return len(text), len(text)
	}
	half := pos + (e-pos)/2
	var late, anyp [tiers]int // the latest cut of each tier (0: none)
	var lateNext, anyNext [tiers]int
	for p := e; p > pos; p = runeFloor(text, p-1) {
		if md.avoid[p] {
			continue
		}
		t, n := md.classify(text, p)
		if anyp[t] == 0 {
			anyp[t], anyNext[t] = p, n
		}
		if p >= half && late[t] == 0 {
			late[t], lateNext[t] = p, n
		}
		if t == tierParagraph {
			break
		}
	}
	for t := range tierHard {
		if late[t] != 0 {
			return late[t], lateNext[t]
		}
	}
	for t := range tiers {
		if anyp[t] != 0 {
			return anyp[t], anyNext[t]
		}
	}
	return e, e
}

// classify says what kind of cut a cut before text[p] is, and where the
// next chunk would start.
func (md *markdown) classify(text string, p int) (tier, next int) {
	if md.fenceAt(p) != nil {
		if text[p] == '\n' {
			return tierLine, p + 1
		}
		return tierHard, p
	}
	if !isSpace(text[p]) || isSpace(text[p-1]) {
		return tierHard, p
	}
	nl := 0
	for next = p; next < len(text) && isSpace(text[next]); next++ {
		if text[next] == '\n' {
			nl++
		}
	}
	switch {
	case nl >= 2:
		return tierParagraph, next
	case nl == 1:
		return tierLine, next
	}
	return tierSpace, next
}

// spaces are the whitespace Split may drop at a cut.
const spaces = " \t\r\n"

// isSpace reports whether c is one of spaces.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
