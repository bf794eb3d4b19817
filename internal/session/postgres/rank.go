package postgres

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BM25's parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rank scores the candidates with BM25 over their text, document
// frequencies and lengths taken over the candidates (the newest matches),
// and sorts them best first, the newest first among equals. Terms count
// as substrings in any case, which is how every mode matched them, so a
// message dense with the query beats one that mentions it once.
func rank(cands []*candidate, terms []term) {
	if len(cands) == 0 {
		return
	}
	lowered := make([]string, len(terms))
	for i, t := range terms {
		lowered[i] = fold(t.text)
	}
	tf := make([][]int, len(cands))
	df := make([]int, len(terms))
	lengths := make([]float64, len(cands))
	var total float64
	for i, c := range cands {
		text := fold(c.text)
		lengths[i] = float64(max(utf8.RuneCountInString(text), 1))
		total += lengths[i]
		tf[i] = make([]int, len(terms))
		for j, t := range lowered {
			if tf[i][j] = strings.Count(text, t); tf[i][j] > 0 {
				df[j]++
			}
		}
	}
	n, avg := float64(len(cands)), total/float64(len(cands))
	for i, c := range cands {
		c.score = 0
		for j := range terms {
			f := float64(tf[i][j])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[j])+0.5)/(float64(df[j])+0.5))
			c.score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*lengths[i]/avg))
		}
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case a.MessageID > b.MessageID:
			return -1
		case a.MessageID < b.MessageID:
			return 1
		}
		return 0
	})
}

// fold lowers s one rune for one rune, so a position in the result is
// the same rune position in s.
func fold(s string) string {
	return strings.Map(unicode.ToLower, s)
}

// Snippet shape: snippetRunes of context on each side of the first
// match, which is marked; white space runs become one space.
const (
	markOpen     = ">>>"
	markClose    = "<<<"
	ellipsis     = "..."
	snippetRunes = 40
)

// snippet cuts the text around the first match of any term; with none
// found (a word matched across punctuation), the text's beginning.
func snippet(text string, terms []term) string {
	runes := []rune(text)
	low := []rune(fold(text))
	start, end := -1, -1
	for _, t := range terms {
		tr := []rune(fold(t.text))
		if at := indexRunes(low, tr); at >= 0 && (start < 0 || at < start) {
			start, end = at, at+len(tr)
		}
	}
	if start < 0 {
		return oneLine(string(runes[:min(len(runes), 2*snippetRunes)]))
	}
	from, to := max(0, start-snippetRunes), min(len(runes), end+snippetRunes)
	var b strings.Builder
	if from > 0 {
		b.WriteString(ellipsis)
	}
	b.WriteString(string(runes[from:start]))
	b.WriteString(markOpen)
	b.WriteString(string(runes[start:end]))
	b.WriteString(markClose)
	b.WriteString(string(runes[end:to]))
	if to < len(runes) {
		b.WriteString(ellipsis)
	}
	return oneLine(b.String())
}

// indexRunes is the position of sub in s, or -1.
func indexRunes(s, sub []rune) int {
	if len(sub) == 0 {
		return -1
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// oneLine turns every run of white space into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
