package redact

import (
	"regexp"
	"slices"
	"strings"
)

// A Redactor only knows the secrets hermes itself holds. Tool output also
// carries secrets hermes never saw: a key in a config file the model
// read, a token in a curl command it echoed, a password in a connection
// string a service logged. Secrets recognizes those by their shape.
// It errs towards redacting: a hidden non-secret costs the model a little
// context, a leaked key costs the user the key.

// secretRule is one secret format.
type secretRule struct {
	// kind names the format in the marker, [REDACTED:<kind>].
	kind string
	re   *regexp.Regexp
	// anchors are literals, lower-case unless exact, at least one of
	// which every match contains, at most back bytes after its start. The rule's
	// expression runs only on the text around them, which is what makes
	// scanning large outputs cheap: Go's regexp cannot skip ahead to a
	// candidate when an expression starts with \b or is case-insensitive.
	anchors []string
	// exact anchors are case-sensitive.
	exact bool
	// prefix rules match only where an anchor starts (see prefixed);
	// boundary rules also need a word boundary there (see atBoundary).
	prefix, boundary bool
	// back is how far before an anchor a match may start; zero means
	// defaultBack.
	back int
	// group is the submatch that is the secret itself (0: the whole
	// match); the rest of the match, such as a variable name or a header
	// name, is kept so the text stays readable.
	group int
	// accept, when set, vets a match by its submatches; a match it
	// rejects is left alone.
	accept func(sub []string) bool
	// kindOf, when set, names the kind from the submatches.
	kindOf func(sub []string) string
	// name rules match from a keyword inside a variable name; submatch 1
	// is widened to the whole name before accept and kindOf see it.
	name bool
}

// secretFormat builds a whole-match rule for a format whose matches
// start with one of the anchors.
func secretFormat(kind, expr string, anchors ...string) secretRule {
	return prefixed(secretRule{kind: kind, anchors: anchors}, expr)
}

// prefixed completes r as a rule whose matches start with an anchor: the
// expression is tried only there, anchored, which costs next to nothing
// per candidate. A leading \b is checked against the byte before the
// anchor.
func prefixed(r secretRule, expr string) secretRule {
	r.prefix = true
	r.boundary = strings.HasPrefix(expr, `\b`)
	r.re = regexp.MustCompile(`\A(?:` + expr + `)`)
	return r
}

// Window sizes around an anchor: matches may start up to defaultBack
// bytes before it, and the expression sees windowAhead bytes after it. A
// match reaching the window's end is re-run on the rest of the text, so
// a long secret is never cut short.
const (
	defaultBack = 32
	windowAhead = 256
)

// Secrets returns text with every secret it recognizes by format
// replaced by [REDACTED:<kind>]: provider API keys and tokens, JWTs,
// private key blocks, Authorization headers, URL passwords and secret
// query parameters, and the values of variables whose names say secret.
// Names, header names and URLs around a secret are kept. Markers already
// in the text are left alone, so redacting twice changes nothing more.
// When two formats claim overlapping text, the one listed first wins.
func Secrets(text string) string {
	if len(text) < 8 {
		return text
	}
	lower := asciiLower(text)
	var spans []span
	rules := secretRules.Get()
	for i := range rules {
		spans = rules[i].find(text, lower, spans)
	}
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp.start])
		b.WriteString("[REDACTED:" + sp.kind + "]")
		last = sp.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// span is a stretch of text to replace with a marker.
type span struct {
	start, end int
	kind       string
}

// find appends the rule's matches in text to spans, skipping those that
// overlap a span already there (found by an earlier rule).
func (r *secretRule) find(text, lower string, spans []span) []span {
	hay := lower
	if r.exact {
		hay = text
	}
	if r.prefix {
		return r.findPrefixed(text, hay, spans)
	}
	back := r.back
	if back == 0 {
		back = defaultBack
	}
	// Windows around every anchor, merged where they touch.
	var wins [][2]int
	for _, a := range r.anchors {
		for off := 0; ; {
			i := strings.Index(hay[off:], a)
			if i < 0 {
				break
			}
			p := off + i
			wins = append(wins, [2]int{max(0, p-back-1), min(len(text), p+len(a)+windowAhead)})
			off = p + len(a)
		}
	}
	if len(wins) == 0 {
		return spans
	}
	slices.SortFunc(wins, func(a, b [2]int) int { return a[0] - b[0] })
	merged := wins[:1]
	for _, w := range wins[1:] {
		if top := &merged[len(merged)-1]; w[0] <= top[1] {
			top[1] = max(top[1], w[1])
		} else {
			merged = append(merged, w)
		}
	}
	for _, w := range merged {
		for _, m := range r.re.FindAllStringSubmatchIndex(text[w[0]:w[1]], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += w[0]
				}
			}
			if m[1] == w[1] && w[1] < len(text) {
				// The window may have cut the match short.
				full := r.re.FindStringSubmatchIndex(text[m[0]:])
				if full == nil || full[0] != 0 {
					continue
				}
				for i := range full {
					if full[i] >= 0 {
						full[i] += m[0]
					}
				}
				m = full
			}
			if sp, ok := r.span(text, m); ok && !overlaps(spans, sp) {
				spans = append(spans, sp)
			}
		}
	}
	return spans
}

// findPrefixed is find for prefix rules.
func (r *secretRule) findPrefixed(text, hay string, spans []span) []span {
	for _, a := range r.anchors {
		for off := 0; ; {
			i := strings.Index(hay[off:], a)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(a)
			if r.boundary && !atBoundary(text, p) {
				continue
			}
			end := min(len(text), p+windowAhead)
			m := r.re.FindStringSubmatchIndex(text[p:end])
			if m == nil {
				continue
			}
			if m[1] == end-p && end < len(text) {
				m = r.re.FindStringSubmatchIndex(text[p:])
			}
			for i := range m {
				if m[i] >= 0 {
					m[i] += p
				}
			}
			if sp, ok := r.span(text, m); ok && !overlaps(spans, sp) {
				spans = append(spans, sp)
				off = max(off, m[1])
			}
		}
	}
	return spans
}

// atBoundary reports whether a word may start at text[p]: at the start,
// after a non-word byte, or after a JSON or shell escape such as \n,
// since tool output usually reaches redaction JSON-encoded and a secret
// at the start of a line then follows "\n".
func atBoundary(text string, p int) bool {
	return p == 0 || !isWordByte(text[p-1]) || afterEscape(text, p)
}

// afterEscape reports whether text[:p] ends with \n, \r or \t.
func afterEscape(text string, p int) bool {
	return p >= 2 && text[p-2] == '\\' && strings.IndexByte("nrt", text[p-1]) >= 0
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// span turns a match's submatch indexes into the span to replace, unless
// the rule rejects the match.
func (r *secretRule) span(text string, m []int) (span, bool) {
	start, end := m[2*r.group], m[2*r.group+1]
	if start < 0 || start == end || strings.HasPrefix(text[start:end], "[REDACTED") {
		return span{}, false
	}
	kind := r.kind
	if r.accept != nil || r.kindOf != nil {
		sub := make([]string, len(m)/2)
		for i := range sub {
			if m[2*i] >= 0 {
				sub[i] = text[m[2*i]:m[2*i+1]]
			}
		}
		if r.name {
			j := m[2]
			for j > 0 && (isWordByte(text[j-1]) || text[j-1] == '.' || text[j-1] == '-') && !afterEscape(text, j) {
				j--
			}
			sub[1] = text[j:m[3]]
		}
		if r.accept != nil && !r.accept(sub) {
			return span{}, false
		}
		if r.kindOf != nil {
			kind = r.kindOf(sub)
		}
	}
	return span{start: start, end: end, kind: kind}, true
}

func overlaps(spans []span, sp span) bool {
	for _, o := range spans {
		if sp.start < o.end && o.start < sp.end {
			return true
		}
	}
	return false
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the
// result are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
