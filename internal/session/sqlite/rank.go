package sqlite

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BM25's usual constants, and how much a match in the tool name or the
// calls' JSON counts against one in the text: those are short and
// repetitive, and would otherwise outrank the conversation.
const (
	bm25K1     = 1.2
	bm25B      = 0.75
	toolWeight = 0.4
)

// folded is a text and its lower-case form, byte for byte: a rune whose
// lower case encodes to another length keeps its case, so an offset
// found in lower cuts orig at the same place.
type folded struct {
	orig, lower string
}

func fold(s string) folded {
	return folded{orig: s, lower: lowerAligned(s)}
}

func lowerAligned(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return lowerRunes(s)
		} else if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func lowerRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == size {
			b.WriteRune(l)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// matcher finds one query term in lower-case text: as whole words (the
// term's words in order, separated by anything else, as unicode61 reads
// them) or as a substring.
type matcher struct {
	words  []string
	byWord bool
	prefix bool // the last word may continue
}

// matchers compiles the distinct terms of pq for a search mode.
func matchers(pq parsedQuery, mode searchMode) []matcher {
	var ms []matcher
	seen := map[string]bool{}
	for _, g := range pq.groups {
		for _, t := range g {
			key := lowerAligned(t.text)
			if seen[key] {
				continue
			}
			seen[key] = true
			m := matcher{byWord: mode != bySubstring, prefix: t.prefix || mode == byWordPrefix}
			if m.byWord {
				m.words = splitWords(key)
			} else {
				m.words = []string{key}
			}
			if len(m.words) > 0 {
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// next returns the byte offsets of the first match in lower at or after
// from, or -1, -1.
func (m matcher) next(lower string, from int) (int, int) {
	for from < len(lower) {
		i := strings.Index(lower[from:], m.words[0])
		if i < 0 {
			break
		}
		i += from
		if end := m.at(lower, i); end >= 0 {
			return i, end
		}
		_, size := utf8.DecodeRuneInString(lower[i:])
		from = i + size
	}
	return -1, -1
}

// at returns where a match starting at byte i of lower ends, or -1.
func (m matcher) at(lower string, i int) int {
	if m.byWord && i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(lower[:i]); isWordRune(r) {
			return -1
		}
	}
	pos := i
	for k, w := range m.words {
		if k > 0 {
			gap := pos
			for pos < len(lower) {
				r, size := utf8.DecodeRuneInString(lower[pos:])
				if isWordRune(r) {
					break
				}
				pos += size
			}
			if pos == gap {
				return -1
			}
		}
		if !strings.HasPrefix(lower[pos:], w) {
			return -1
		}
		pos += len(w)
	}
	if m.byWord && !m.prefix && pos < len(lower) {
		if r, _ := utf8.DecodeRuneInString(lower[pos:]); isWordRune(r) {
			return -1
		}
	}
	return pos
}

// count is how many times m occurs in lower, without overlaps.
func (m matcher) count(lower string) int {
	n := 0
	for from := 0; ; n++ {
		_, end := m.next(lower, from)
		if end < 0 {
			return n
		}
		from = end
	}
}

// rank scores the candidates with BM25, taking document frequencies and
// the average length over the candidates themselves, and sorts them best
// first, then newest.
func rank(cands []*candidate, ms []matcher) {
	if len(cands) == 0 {
		return
	}
	tf := make([][]float64, len(cands))
	df := make([]int, len(ms))
	var total float64
	for i := range cands {
		c := cands[i]
		c.cols = [3]folded{fold(c.content), fold(c.toolCalls), fold(c.toolName)}
		// Length counts every column in full, as FTS5's bm25 does: were
		// the tool columns shortened by their weight too, a bare tool
		// call would look like a short, dense document and outrank the
		// conversation after all.
		c.length = float64(utf8.RuneCountInString(c.content) + utf8.RuneCountInString(c.toolCalls) +
			utf8.RuneCountInString(c.toolName))
		total += c.length
		tf[i] = make([]float64, len(ms))
		for j, m := range ms {
			f := float64(m.count(c.cols[0].lower)) +
				toolWeight*float64(m.count(c.cols[1].lower)+m.count(c.cols[2].lower))
			tf[i][j] = f
			if f > 0 {
				df[j]++
			}
		}
	}
	n := float64(len(cands))
	avg := max(total/n, 1)
	for i := range cands {
		var score float64
		for j := range ms {
			if f := tf[i][j]; f > 0 {
				idf := math.Log(1 + (n-float64(df[j])+0.5)/(float64(df[j])+0.5))
				score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*cands[i].length/avg))
			}
		}
		cands[i].score = score
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.MessageID, a.MessageID)
	})
}

// isWordRune reports whether unicode61 keeps r in a token.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// splitWords splits s into unicode61's tokens.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}
