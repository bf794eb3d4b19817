package redact

// A token can reach the text split by a character that does not show:
// a zero-width space pasted with it, a terminal escape sequence, a
// control byte, or a line break where output was wrapped. Both halves
// are still the secret, and neither may be recognizable alone ("ghp_abc"
// and "def…"). Token formats are therefore also tried on the token with
// those characters taken out; a match that needed them taken out is
// redacted whole, splitting characters included.

// maxSplits is how many splitting characters a joined token may cross.
// Real tokens are split once or twice; the bound keeps a text dense with
// control characters linear to scan.
const maxSplits = 4

// joiner finds a rule's tokens split by invisible characters, visiting
// the rule's candidate starts in increasing order.
type joiner struct {
	runFrom, runTo int    // the token run last scanned
	tried          int    // the split last tried, plus one
	buf            []byte // the joined token, reused
	pos            []int  // where each of its bytes is in text
}

// at tries the rule on the token starting at text[s:] with the
// characters that split it taken out. It reports a span only when the
// token is split and the rule matches across the split. headMatched says
// whether the rule matched the text before the split alone: a line break
// after a whole token ends it (the next line is other text), so only
// invisible characters are joined over then.
func (j *joiner) at(r *secretRule, text string, s int, headMatched bool) (span, bool) {
	if s < j.runFrom || s >= j.runTo {
		q := s
		for q < len(text) && isTokenByte(text[q]) {
			q++
		}
		j.runFrom, j.runTo = s, q
	}
	q := j.runTo
	n, lineBreak := splitLen(text, q)
	if n == 0 || lineBreak && headMatched || q-s >= windowAhead || q+1 == j.tried {
		return span{}, false
	}
	j.tried = q + 1
	// The token with the splitting characters taken out, and where each
	// of its bytes is in text.
	b, at := j.buf[:0], j.pos[:0]
	defer func() { j.buf, j.pos = b, at }()
	for i, splits := s, 0; i < len(text) && len(b) < windowAhead; {
		if isTokenByte(text[i]) {
			b = append(b, text[i])
			at = append(at, i)
			i++
			continue
		}
		n, lineBreak := splitLen(text, i)
		if n == 0 || lineBreak && (headMatched || wholeToken(r, b)) || splits == maxSplits {
			break
		}
		i += n
		splits++
	}
	joined := string(b)
	m := r.re.FindStringSubmatchIndex(joined)
	if m == nil {
		return span{}, false
	}
	sp, ok := r.span(match{joined, m}, 0)
	if !ok {
		return span{}, false
	}
	start, end := at[sp.start], at[sp.end-1]+1
	if end-start == sp.end-sp.start || end < len(text) && text[end] == '=' {
		// Not split after all, or running into a NAME=.
		return span{}, false
	}
	return span{start: start, end: end, kind: sp.kind}, true
}

// wholeToken reports whether the rule matches all of the token joined so
// far: a line break after a whole token ends it, even when an invisible
// character split the token before (the next line is other text).
func wholeToken(r *secretRule, joined []byte) bool {
	m := r.re.FindIndex(joined)
	return m != nil && m[1] == len(joined)
}

// isTokenByte reports whether c may be part of a token's body.
func isTokenByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '.'
}

// splitLen returns the length of the splitting character or sequence at
// text[i], 0 when there is none, and whether it is a line break.
// Splitting are control bytes but tab (a column separator), ANSI CSI
// sequences (ESC [ … final byte), C1 controls, and the zero-width and
// bidirectional formatting characters U+200B–U+200F, U+2028–U+202F,
// U+2060 and U+FEFF.
func splitLen(text string, i int) (n int, lineBreak bool) {
	if i >= len(text) {
		return 0, false
	}
	switch c := text[i]; {
	case c == '\n' || c == '\r':
		return 1, true
	case c == 0x1b && i+1 < len(text) && text[i+1] == '[':
		j := i + 2
		for j < len(text) && j-i < 32 && text[j] >= 0x20 && text[j] <= 0x3f {
			j++
		}
		if j < len(text) && text[j] >= 0x40 && text[j] <= 0x7e {
			return j + 1 - i, false
		}
		return 1, false
	case c < 0x20 && c != '\t' || c == 0x7f:
		return 1, false
	case c == 0xc2 && i+1 < len(text) && text[i+1] >= 0x80 && text[i+1] <= 0x9f:
		return 2, false
	case c == 0xe2 && i+2 < len(text):
		c1, c2 := text[i+1], text[i+2]
		if c1 == 0x80 && (c2 >= 0x8b && c2 <= 0x8f || c2 >= 0xa8 && c2 <= 0xaf) || c1 == 0x81 && c2 == 0xa0 {
			return 3, false
		}
	case c == 0xef && i+2 < len(text) && text[i+1] == 0xbb && text[i+2] == 0xbf:
		return 3, false
	}
	return 0, false
}
