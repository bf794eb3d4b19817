package gateway

import (
	"sort"
	"strings"
)

// markdown is what Split knows of a text's Markdown: its fenced code
// blocks and the places it should not cut.
type markdown struct {
	fences []fence
	// avoid[p] is set when a cut before text[p] would fall inside an
	// inline code span, an emphasis, a link or a fence line, or would
	// leave an empty code block behind.
	avoid []bool
	// fits reports whether text[from:to] fits in one chunk.
	fits func(from, to int) bool
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
	// whole is 1 when the block fits in one chunk, -1 when not, 0 when
	// not yet measured.
	whole int8
}

// cutsInto reports whether a cut at p inside f, a chunk starting at pos,
// would cut a block that could go whole into the next chunk: a cut
// before the block is better then.
func (md *markdown) cutsInto(f *fence, pos int) bool {
	if f.open <= pos {
		return false
	}
	if f.whole == 0 {
		f.whole = -1
		if md.fits(f.open, f.closeEnd) {
			f.whole = 1
		}
	}
	return f.whole == 1
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

// fenceAt returns the block whose region holds p, or nil.
func (md *markdown) fenceAt(p int) *fence {
	i := sort.Search(len(md.fences), func(i int) bool { return md.fences[i].closeStart >= p })
	if i < len(md.fences) && md.fences[i].openEnd <= p {
		return &md.fences[i]
	}
	return nil
}

// choose picks where to cut a chunk that starts at pos and may end as
// late as e, or as loose outside code blocks, and returns the cut and
// where the next chunk starts (after the whitespace the cut drops).
func (md *markdown) choose(text string, pos, e, loose int) (cut, next int) {
	if e >= len(text) {
		return len(text), len(text)
	}
	half := pos + (loose-pos)/2
	var late, anyp [tiers]int // the latest cut of each tier (0: none)
	var lateNext, anyNext [tiers]int
	for p := min(loose, len(text)-1); p > pos; p = runeFloor(text, p-1) {
		if md.avoid[p] {
			continue
		}
		if f := md.fenceAt(p); f != nil && (p > e || md.cutsInto(f, pos)) {
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
