package gateway

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ByteLen counts text in bytes of UTF-8, the unit of WeCom and DingTalk's
// limits.
func ByteLen(s string) int { return len(s) }

// UTF16Len counts text in UTF-16 code units, the unit of Telegram's 4096
// limit and its entity offsets: a rune outside the Basic Multilingual
// Plane (most emoji) counts two. An invalid byte counts one, as the
// replacement character it decodes to.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += utf16.RuneLen(r)
		i += size
	}
	return n
}

// Split cuts Markdown text into chunks that each measure at most max, so
// that a long reply can be sent as several messages. measure counts in
// the platform's unit (nil counts bytes); it must count a text no less
// than any of its prefixes, as ByteLen and UTF16Len do.
//
// A cut is made, by preference, at a paragraph break, then at a line
// break, then at a space, and only then inside a word; it is never made
// inside a rune, and not inside an inline code span, an emphasis, a link
// or a fence line when another cut fits. A chunk is not cut shorter than
// half of what fits for a break that comes earlier, except to keep a code
// block that fits in one chunk whole.
//
// A fenced code block that must be cut is closed at the end of one chunk
// (a newline and the fence marker) and opened again at the start of the
// next (the fence marker with its info string, such as "```go", and a
// newline); both lines count against max. Inside a code block only line
// breaks and rune boundaries are cut at, and only the newline at a cut is
// dropped, so the code reads the same once the added fence lines are
// taken away (a line longer than a chunk is cut in two).
//
// Taking away the added fence lines, the chunks are the text in order,
// with nothing dropped but whitespace at the cuts: the whole run of
// spaces, tabs and newlines at a break outside a code block, one newline
// inside one. A chunk that would hold only whitespace is left out.
//
// Text that fits is returned whole; empty text gives no chunks. When max
// cannot hold a fence marker pair and one rune, that chunk is cut without
// fence lines, and when it cannot hold one rune, the rune gets a chunk of
// its own that does not fit: max should be at least 4 bytes or 2 UTF-16
// units plus the longest fence line.
func Split(text string, max int, measure func(string) int) []string {
	pieces := splitPieces(text, max, measure)
	if pieces == nil {
		return nil
	}
	out := make([]string, len(pieces))
	for i, p := range pieces {
		out[i] = p.open + text[p.start:p.end] + p.close
	}
	return out
}

// piece is one chunk of Split: text[start:end] with the fence lines added
// before (open) and after (close) it.
type piece struct {
	start, end  int
	open, close string
}

// splitPieces does Split's work and returns where each chunk lies in the
// text, so that its tests can check that the chunks are the text.
func splitPieces(text string, max int, measure func(string) int) []piece {
	if text == "" {
		return nil
	}
	if measure == nil {
		measure = ByteLen
	}
	if measure(text) <= max {
		return []piece{{start: 0, end: len(text)}}
	}
	md := scanMarkdown(text)
	md.fits = func(from, to int) bool { return measure(text[from:to]) <= max }
	var out []piece
	pos := 0
	for pos < len(text) {
		b := md.fenceAt(pos)
		open := ""
		if b != nil {
			open = b.line + "\n"
		}
		// loose is as far as the chunk may reach when it ends outside a
		// code block, e when it must add a closing fence line.
		loose := md.fit(text, pos, open, "", max, measure)
		if loose == len(text) {
			out = appendPiece(out, text, piece{start: pos, end: len(text), open: open})
			break
		}
		fenced, e := true, loose
		if md.worstClose != "" {
			e = md.fitBelow(text, pos, loose, open, md.worstClose, max, measure)
		}
		if e == pos {
			// Too small for the fence lines: cut without them.
			fenced, open = false, ""
			e = md.fit(text, pos, "", "", max, measure)
			if e == pos {
				_, size := utf8.DecodeRuneInString(text[pos:])
				e = pos + size
			}
			loose = e
		}
		cut, next := md.choose(text, pos, e, loose)
		p := piece{start: pos, end: cut, open: open}
		if cb := md.fenceAt(cut); fenced && cb != nil {
			p.close = "\n" + cb.marker
		}
		out = appendPiece(out, text, p)
		pos = next
	}
	return out
}

// appendPiece appends p unless it would be a chunk of whitespace only.
func appendPiece(out []piece, text string, p piece) []piece {
	if p.open == "" && p.close == "" && strings.TrimLeft(text[p.start:p.end], spaces) == "" {
		return out
	}
	return append(out, p)
}

// fitBelow is fit for a longer close, knowing that the end is at most
// hi: it steps back from hi a rune at a time, as a closing fence line
// takes only a few runes, and searches as fit does when that fails.
func (md *markdown) fitBelow(text string, pos, hi int, open, close string, max int, measure func(string) int) int {
	for e, i := hi, 0; e > pos && i < 16; e, i = runeFloor(text, e-1), i+1 {
		if measure(open+text[pos:e]+close) <= max {
			return e
		}
	}
	return md.fit(text, pos, open, close, max, measure)
}

// fit returns the largest rune boundary e after pos for which
// open+text[pos:e]+close measures at most max, or pos when no rune fits.
// It doubles its step from max bytes and then halves it, so it measures
// about log(chunk size) texts.
func (md *markdown) fit(text string, pos int, open, close string, max int, measure func(string) int) int {
	fits := func(e int) bool { return measure(open+text[pos:e]+close) <= max }
	good, bad := pos, len(text)+1
	step := max
	if step < 4 {
		step = 4
	}
	for {
		e := runeFloor(text, pos+step)
		if e <= good {
			e = runeCeil(text, good+1)
		}
		if e <= good || e >= bad {
			break
		}
		if fits(e) {
			good = e
			if e == len(text) {
				break
			}
			step *= 2
		} else {
			bad = e
			break
		}
	}
	for {
		mid := runeFloor(text, good+(bad-good)/2)
		if mid <= good {
			mid = runeCeil(text, good+1)
		}
		if mid <= good || mid >= bad {
			return good
		}
		if fits(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
}

// runeFloor returns the largest rune boundary at or before i (len(text)
// when i is past it). Every byte that is not a continuation byte starts a
// rune, and a continuation byte that no such byte claims is a rune of its
// own, as range decodes it.
func runeFloor(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(text[j]) {
			if _, size := utf8.DecodeRuneInString(text[j:]); j+size > i {
				return j
			}
			return i
		}
	}
	return i
}

// runeCeil returns the smallest rune boundary at or after i.
func runeCeil(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	j := runeFloor(text, i)
	if j == i {
		return i
	}
	_, size := utf8.DecodeRuneInString(text[j:])
	return j + size
}
