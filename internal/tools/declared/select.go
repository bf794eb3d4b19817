package declared

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// selector is a small jq-like path over a decoded JSON response:
//
//	.            the whole value
//	.a.b         object keys
//	."x-y"       a key that is not an identifier
//	.a[0] .a[-1] an array element, negative from the end
//	.a[]         every element (the rest applies to each)
//	... | length the length of an array, object or string
type selector struct {
	src    string
	steps  []selStep
	length bool
}

type selKind int

const (
	selKey selKind = iota
	selIndex
	selEach
)

type selStep struct {
	kind  selKind
	key   string
	index int
}

// parseSelector parses a select: expression; the error says where it
// stops making sense and what is accepted.
func parseSelector(src string) (*selector, error) {
	s := &selector{src: src}
	path, pipe, hasPipe := strings.Cut(src, "|")
	if hasPipe {
		if strings.TrimSpace(pipe) != "length" {
			return nil, fmt.Errorf("%q: only \"| length\" may follow a path", src)
		}
		s.length = true
	}
	p := strings.TrimSpace(path)
	if !strings.HasPrefix(p, ".") {
		return nil, fmt.Errorf("%q: a selector starts with \".\" (e.g. .items, .data[0].name, .items[].id)", src)
	}
	if p == "." {
		return s, nil
	}
	for i := 0; i < len(p); {
		switch {
		case p[i] == '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: unclosed [", src)
			}
			inner := p[i+1 : i+end]
			if inner == "" {
				s.steps = append(s.steps, selStep{kind: selEach})
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("%q: [%s] is not an index; use [0], [-1] or []", src, inner)
				}
				s.steps = append(s.steps, selStep{kind: selIndex, index: n})
			}
			i += end + 1
		case p[i] == '.' && i+1 < len(p) && p[i+1] == '"':
			rest := p[i+1:]
			key, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("%q: unterminated quoted key", src)
			}
			k, _ := strconv.Unquote(key)
			s.steps = append(s.steps, selStep{kind: selKey, key: k})
			i += 1 + len(key)
		case p[i] == '.':
			j := i + 1
			for j < len(p) && (isIdentByte(p[j])) {
				j++
			}
			if j == i+1 {
				if j < len(p) && p[j] == '[' {
					i = j // ".[0]" indexes the root
					continue
				}
				return nil, fmt.Errorf("%q: expected a key after \".\" at offset %d", src, i)
			}
			s.steps = append(s.steps, selStep{kind: selKey, key: p[i+1 : j]})
			i = j
		default:
			return nil, fmt.Errorf("%q: unexpected %q at offset %d", src, p[i], i)
		}
	}
	return s, nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf
}

// apply runs the selector over v. found is false when the path leads
// nowhere (a missing key, an index out of range, a type that does not
// fit); the value is then nil.
func (s *selector) apply(v any) (any, bool) {
	out, found := walkSel(v, s.steps)
	if !found {
		return nil, false
	}
	if s.length {
		switch x := out.(type) {
		case []any:
			return len(x), true
		case map[string]any:
			return len(x), true
		case string:
			return utf8.RuneCountInString(x), true
		case nil:
			return 0, true
		}
		return nil, false
	}
	return out, true
}

func walkSel(v any, steps []selStep) (any, bool) {
	for i, st := range steps {
		switch st.kind {
		case selKey:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
				return nil, false
			}
		case selIndex:
			a, ok := v.([]any)
			if !ok {
				return nil, false
			}
			idx := st.index
			if idx < 0 {
				idx += len(a)
			}
			if idx < 0 || idx >= len(a) {
				return nil, false
			}
			v = a[idx]
		case selEach:
			a, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := make([]any, 0, len(a))
			for _, e := range a {
				r, _ := walkSel(e, steps[i+1:])
				out = append(out, r)
			}
			return out, true
		}
	}
	return v, true
}
