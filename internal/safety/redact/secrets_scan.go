package redact

import (
	"slices"
	"strings"
)

// ruleSet is the rules with an index of their anchors, so that one pass
// over the text finds every anchor of every rule: looking for each
// anchor in turn would read the text a hundred times.
type ruleSet struct {
	rules []secretRule
	// pairs maps an anchor's first two bytes, lower-cased, to its
	// group in groups (0: none). Every anchor has two bytes or more.
	pairs  []uint16
	groups [][]anchorRef
}

// anchorRef is one anchor of one rule.
type anchorRef struct {
	rule   int
	anchor string
	exact  bool
}

// hit is where an anchor is in the text.
type hit struct{ pos, len int }

func newRuleSet(rules []secretRule) *ruleSet {
	set := &ruleSet{rules: rules, pairs: make([]uint16, 1<<16), groups: [][]anchorRef{nil}}
	for i, r := range rules {
		for _, a := range r.anchors {
			ref := anchorRef{rule: i, anchor: a, exact: r.exact}
			k := pairKey(asciiLower(a[:2]))
			if set.pairs[k] == 0 {
				set.pairs[k] = uint16(len(set.groups))
				set.groups = append(set.groups, nil)
			}
			set.groups[set.pairs[k]] = append(set.groups[set.pairs[k]], ref)
		}
	}
	return set
}

func pairKey(s string) uint16 { return uint16(s[0])<<8 | uint16(s[1]) }

// scan returns, for each rule, where its anchors are in text, in order.
// lower is text lower-cased (see asciiLower).
func (set *ruleSet) scan(text, lower string) [][]hit {
	hits := make([][]hit, len(set.rules))
	add := func(ref anchorRef, i int) {
		hay := lower
		if ref.exact {
			hay = text
		}
		if strings.HasPrefix(hay[i:], ref.anchor) {
			hits[ref.rule] = append(hits[ref.rule], hit{i, len(ref.anchor)})
		}
	}
	for i := 0; i+1 < len(lower); i++ {
		if g := set.pairs[pairKey(lower[i:])]; g != 0 {
			for _, ref := range set.groups[g] {
				add(ref, i)
			}
		}
	}
	return hits
}

// merge returns the sorted, disjoint spans with those of found that
// overlap none of them nor an earlier one of found, in order.
func merge(spans, found []span) []span {
	if len(found) == 0 {
		return spans
	}
	slices.SortStableFunc(found, func(a, b span) int { return a.start - b.start })
	out := make([]span, 0, len(spans)+len(found))
	i := 0
	for _, f := range found {
		for i < len(spans) && spans[i].end <= f.start {
			out = append(out, spans[i])
			i++
		}
		if i < len(spans) && spans[i].start < f.end {
			continue // an earlier rule's span overlaps f
		}
		if n := len(out); n > 0 && out[n-1].end > f.start {
			continue // so does one of found
		}
		out = append(out, f)
	}
	return append(out, spans[i:]...)
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the
// result are offsets in s.
func asciiLower(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			if last == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteByte(c + 'a' - 'A')
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
