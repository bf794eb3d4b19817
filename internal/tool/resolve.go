package tool

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxRepairLen bounds the names the edit-distance step looks at: a "name"
// longer than this is not a misspelling.
const maxRepairLen = 128

// Resolve maps the name a model called to an offered tool and its
// canonical name. Models misspell tool names in a few predictable ways, and
// answering "not found" costs a whole round trip, so Resolve tries in
// order: the exact name; the name ignoring case; a normalized form
// (CamelCase to snake_case; '-', ' ' and '.' to '_'; a leading
// "functions." or "tool_" and a trailing "_tool" removed); the part after a
// namespace dot; and finally the one offered name within a small edit
// distance (1 for names of 3 to 5 characters, 2 from 6). Any step that
// matches more than one tool gives up rather than guess.
func (r *Registry) Resolve(name string) (Tool, string, bool) {
	s := r.snapshot()
	if e, ok := s.offered[name]; ok {
		return e.tool, name, true
	}
	name = strings.TrimSpace(name)
	if canon, ok := only(s.folded[strings.ToLower(name)]); ok {
		return s.offered[canon].tool, canon, true
	}
	norm := normalizeName(name)
	if canon, ok := only(s.normalized[norm]); ok {
		return s.offered[canon].tool, canon, true
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if canon, ok := only(s.normalized[normalizeName(name[i+1:])]); ok {
			return s.offered[canon].tool, canon, true
		}
	}
	if canon, ok := closest(norm, s.normalized); ok {
		return s.offered[canon].tool, canon, true
	}
	return nil, "", false
}

// only returns the single element of names.
func only(names []string) (string, bool) {
	if len(names) != 1 {
		return "", false
	}
	return names[0], true
}

// closest returns the canonical name whose normalized form is nearest to
// norm, when it is within the allowed distance and no other is as near.
func closest(norm string, normalized map[string][]string) (string, bool) {
	n := utf8.RuneCountInString(norm)
	limit := 0
	switch {
	case n > maxRepairLen:
		return "", false
	case n >= 6:
		limit = 2
	case n >= 3:
		limit = 1
	}
	if limit == 0 {
		return "", false
	}
	best, bestDist, ties := "", limit+1, 0
	var ed editor
	ra := []rune(norm)
	for cand, canon := range normalized {
		d := ed.distance(ra, cand, limit)
		switch {
		case d < bestDist:
			best, bestDist, ties = "", d, 0
			if len(canon) == 1 {
				best = canon[0]
			} else {
				ties = 1
			}
		case d == bestDist:
			ties++
		}
	}
	if bestDist > limit || ties > 0 || best == "" {
		return "", false
	}
	return best, true
}

// editor computes Levenshtein distances reusing its buffers, so a search
// over every tool name allocates once.
type editor struct {
	rb, prev, cur []int
}

// distance is the Levenshtein distance between ra and b, or limit+1 when
// it is surely larger than limit.
func (e *editor) distance(ra []rune, b string, limit int) int {
	e.rb = e.rb[:0]
	for _, r := range b {
		e.rb = append(e.rb, int(r))
	}
	rb := e.rb
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := append(e.prev[:0], make([]int, len(rb)+1)...)
	cur := append(e.cur[:0], make([]int, len(rb)+1)...)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if int(ra[i-1]) == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			e.prev, e.cur = prev, cur
			return limit + 1
		}
		prev, cur = cur, prev
	}
	e.prev, e.cur = prev, cur
	return prev[len(rb)]
}

// normalizeName folds the spellings models use for one tool name to one
// form: "functions.ReadFile", "read-file", "Read File" and "read_file_tool"
// all become "read_file".
func normalizeName(name string) string {
	name = strings.TrimSpace(name)
	if len(name) >= len("functions.") && strings.EqualFold(name[:len("functions.")], "functions.") {
		name = name[len("functions."):]
	}
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '-' || r == ' ' || r == '.' || r == '_':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && startsWord(rs, i) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	out := collapseUnderscores(b.String())
	out = strings.TrimPrefix(out, "tool_")
	out = strings.TrimSuffix(out, "_tool")
	return out
}

// startsWord reports whether the upper-case rune at i begins a new word:
// after a lower-case letter or digit ("readFile"), or as the last capital
// of an acronym followed by lower case ("HTTPRequest").
func startsWord(rs []rune, i int) bool {
	prev := rs[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
}

// collapseUnderscores squeezes runs of '_' and trims them from both ends.
func collapseUnderscores(s string) string {
	var b strings.Builder
	last := byte('_')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && last == '_' {
			continue
		}
		b.WriteByte(c)
		last = c
	}
	return strings.TrimSuffix(b.String(), "_")
}

// UnknownToolResult is the answer to a call of a tool the model is not
// offered. It lists the tools that are offered so the model can pick one,
// and says why when the tool exists but is switched off or unavailable.
func (r *Registry) UnknownToolResult(name string) Result {
	s := r.snapshot()
	list := strings.Join(s.offeredNames, ", ")
	if list == "" {
		list = "(none)"
	}
	if reason, ok := s.unavailable[name]; ok {
		return Fail(CodeNotFound, "the tool %q is not available here (%s); the available tools are: %s", name, reason, list)
	}
	if _, ok := r.Get(name); ok {
		return Fail(CodeNotFound, "the tool %q is not enabled in this session; the available tools are: %s", name, list)
	}
	return Fail(CodeNotFound, "there is no tool named %q; the available tools are: %s. Call one of them by its exact name", name, list)
}
