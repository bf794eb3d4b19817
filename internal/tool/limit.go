package tool

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// askForLess is the advice every cut output ends with, so the model knows
// how to get the rest instead of calling the same thing again.
const askForLess = "ask for less: use a narrower query, a filter, or offset/limit"

// maxShrinkSteps bounds how many strings render shortens before it gives
// up on keeping the envelope valid JSON.
const maxShrinkSteps = 8

// render serializes res and cuts it to limit characters (runes). It first
// shortens the longest strings inside data, which keeps the envelope valid
// JSON and tells the model in the message what happened; when that is not
// enough (thousands of small items), it cuts the serialized text and
// appends a note. It reports whether anything was cut.
func render(res Result, limit int) (string, bool) {
	s := res.JSON()
	if len(s) <= limit {
		return s, false
	}
	total := utf8.RuneCountInString(s)
	if total <= limit {
		return s, false
	}
	if out, ok := shrinkStrings(res, total, limit); ok {
		return out, true
	}
	return cutText(s, total, limit), true
}

// shrinkStrings shortens the longest strings in res.Data, one at a time,
// until the envelope fits.
func shrinkStrings(res Result, total, limit int) (string, bool) {
	var v any
	if str, ok := res.Data.(string); ok {
		v = str
	} else {
		b, err := marshalNoEscape(res.Data)
		if err != nil {
			return "", false
		}
		if v, err = decodeJSON(string(b)); err != nil {
			return "", false
		}
	}
	note := fmt.Sprintf("output cut: %s characters in all, shortened to fit %s; %s",
		GroupDigits(total), GroupDigits(limit), askForLess)
	if res.Message != "" {
		note = res.Message + " (" + note + ")"
	}
	out := Result{Status: res.Status, ErrorCode: res.ErrorCode, Message: note}
	for range maxShrinkSteps {
		out.Data = v
		s := out.JSON()
		n := utf8.RuneCountInString(s)
		if n <= limit {
			return s, true
		}
		leaf := longestString(&v)
		if leaf.set == nil || leaf.value == "" {
			return "", false
		}
		leaf.set(cutString(leaf.value, n-limit))
	}
	return "", false
}

// cutString shortens s so that its JSON encoding is at least excess
// characters shorter, counting the marker it appends. Escapes are
// counted, so text full of newlines or quotes is not cut more than needed.
func cutString(s string, excess int) string {
	encoded := 0
	for _, r := range s {
		encoded += jsonRunes(r)
	}
	total := utf8.RuneCountInString(s)
	sizing := fmt.Sprintf("…[%s characters cut]", GroupDigits(total))
	budget := encoded - excess - utf8.RuneCountInString(sizing)
	i, kept, used := 0, 0, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if used+jsonRunes(r) > budget {
			break
		}
		used += jsonRunes(r)
		i += size
		kept++
	}
	return s[:i] + fmt.Sprintf("…[%s characters cut]", GroupDigits(total-kept))
}

// jsonRunes is how many characters r takes inside a JSON string written
// by encoding/json with HTML escaping off. Control characters other than
// \n, \r and \t are counted at their longest form.
func jsonRunes(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '\u2028' || r == '\u2029':
		return 6
	}
	return 1
}

// stringLeaf is a string inside decoded JSON and a way to replace it.
type stringLeaf struct {
	value string
	set   func(string)
}

// longestString finds the longest string under *v; object keys are visited
// in sorted order so ties always resolve the same way.
func longestString(v *any) stringLeaf {
	var best stringLeaf
	consider := func(s string, set func(string)) {
		if len(s) > len(best.value) {
			best = stringLeaf{value: s, set: set}
		}
	}
	var walk func(x any, set func(string))
	walk = func(x any, set func(string)) {
		switch t := x.(type) {
		case string:
			consider(t, set)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k], func(s string) { t[k] = s })
			}
		case []any:
			for i := range t {
				walk(t[i], func(s string) { t[i] = s })
			}
		}
	}
	walk(*v, func(s string) { *v = s })
	return best
}

// cutText keeps the first characters of s and appends a note, so that the
// result has at most limit characters.
func cutText(s string, total, limit int) string {
	note := fmt.Sprintf("\n[output cut: %s characters, showing the first %s; %s]",
		GroupDigits(total), GroupDigits(limit), askForLess)
	keep := limit - utf8.RuneCountInString(note)
	if keep < 0 {
		keep = 0
	}
	i, n := 0, 0
	for i < len(s) && n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s[:i] + note
}

// GroupDigits writes n with thousands separators (250000 → "250,000"),
// as every count hermes shows a model or a person is written.
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
