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
// context, a leaked key costs the user the key. It does not corrupt
// code or prose, though: a name that only may mean a secret (token, key)
// hides its value only when the value looks like one.

// secretRule is one secret format.
type secretRule struct {
	// kind names the format in the marker, [REDACTED:<kind>].
	kind string
	// re is anchored: it is tried only where a match may start, found
	// from the anchors.
	re *regexp.Regexp
	// anchors are literals, lower-case unless exact, one of which every
	// match contains. The expression runs only at them, which is what
	// makes scanning large outputs cheap and linear: Go's regexp cannot
	// skip ahead to a candidate when an expression starts with \b or is
	// case-insensitive.
	anchors []string
	// exact anchors are case-sensitive.
	exact bool
	// Without start, a match starts at its anchor, and boundary rules
	// need a word boundary there (see atBoundary). start, when set, says
	// where a match starts for an anchor at p (it may be before it), or
	// -1 when none can.
	boundary bool
	start    func(text string, p int) int
	// word rules read the whole word an anchor is in, so the word's
	// other anchors are not tried again.
	word bool
	// group is the submatch that is the secret itself (0: the whole
	// match); the rest of the match, such as a variable name or a header
	// name, is kept so the text stays readable.
	group int
	// vet, when set, decides on a match: ok false leaves it alone, and a
	// kind other than "" names it.
	vet func(x match) (kind string, ok bool)
	// join rules are token formats also found when a zero-width or
	// control character splits the token (see joiner).
	join bool
}

// match is a match of a rule's expression: m holds its submatch indexes
// into text.
type match struct {
	text string
	m    []int
}

// sub returns submatch i, or "" when it did not take part.
func (x match) sub(i int) string {
	if x.m[2*i] < 0 {
		return ""
	}
	return x.text[x.m[2*i]:x.m[2*i+1]]
}

// secretFormat builds a whole-match token rule for a format whose
// matches start with one of the anchors.
func secretFormat(kind, expr string, anchors ...string) secretRule {
	return compiled(secretRule{kind: kind, anchors: anchors, join: true}, expr)
}

// compiled completes r with its expression, anchored. A leading \b is
// checked against the byte before the match (see atBoundary), so that a
// secret right after a JSON escape such as \n is found.
func compiled(r secretRule, expr string) secretRule {
	r.boundary = strings.HasPrefix(expr, `\b`)
	r.re = regexp.MustCompile(`\A(?:` + expr + `)`)
	return r
}

// windowAhead is how much text after a match's start the expression
// sees at first: Go's regexp clears state in proportion to its input,
// so a window keeps the many failed tries cheap. It is longer than any
// format of fixed length. A match reaching the window's end is re-run on
// the rest of the text, so a long secret is never cut short. It also
// bounds a token split by invisible characters (see joiner).
const windowAhead = 256

// Secrets returns text with every secret it recognizes by format
// replaced by [REDACTED:<kind>]: provider API keys and tokens, JWTs,
// private key blocks, Authorization headers, URL credentials and secret
// query parameters, and the values of variables whose names say secret.
// Names, header names and URLs around a secret are kept. Markers already
// in the text are left alone, so redacting twice changes nothing more.
// When two formats claim overlapping text, the one listed first wins.
func Secrets(text string) string {
	spans := secretSpans(text)
	if len(spans) == 0 {
		return text
	}
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

// secretSpans returns the stretches of text Secrets replaces, in order
// and disjoint.
func secretSpans(text string) []span {
	if len(text) < 8 {
		return nil
	}
	set := secretRules.Get()
	lower := asciiLower(text)
	hits := set.scan(text, lower)
	// Markers already in the text are spans of no kind, which no rule's
	// match may overlap; they are dropped at the end.
	spans := markers(text)
	var found []span
	for i := range set.rules {
		found = set.rules[i].find(text, hits[i], spans, found[:0])
		spans = merge(spans, found)
	}
	return slices.DeleteFunc(spans, func(sp span) bool { return sp.kind == "" })
}

// markers returns where the markers Secrets writes are in text.
func markers(text string) []span {
	var spans []span
	for off := 0; ; {
		i := strings.Index(text[off:], "[REDACTED:")
		if i < 0 {
			return spans
		}
		start := off + i
		off = start + len("[REDACTED:")
		if j := strings.IndexByte(text[off:min(len(text), off+64)], ']'); j >= 0 {
			off += j + 1
			spans = append(spans, span{start: start, end: off})
		}
	}
}

// span is a stretch of text to replace with a marker.
type span struct {
	start, end int
	kind       string
}

// find appends the rule's matches in text to found, trying the rule at
// its anchors' positions, in order. Every match, taken or not, is
// skipped over whole, so no byte is matched twice by one rule beyond the
// window size: scanning stays linear.
//
// earlier are the spans earlier rules found (and the markers already in
// the text). The rule sees the text between two of them only, as it
// would see it redacted, so that redacting the result again finds
// nothing more: a match does not run into one of them, and one starting
// or ending at one of them is what is left beside a secret already
// redacted, and is not taken.
func (r *secretRule) find(text string, anchors []hit, earlier, found []span) []span {
	var split joiner
	off, splitLo := 0, 0
	for _, h := range anchors {
		p := h.pos
		if p < off {
			continue
		}
		off = p + h.len
		if r.word {
			for off < len(text) && isWordByte(text[off]) {
				off++
			}
		}
		// The stretch between earlier spans the anchor is in.
		k, _ := slices.BinarySearchFunc(earlier, p, func(sp span, p int) int { return sp.end - 1 - p })
		lo, hi := 0, len(text)
		if k < len(earlier) {
			if earlier[k].start <= p {
				off = max(off, earlier[k].end)
				continue
			}
			hi = earlier[k].start
		}
		if k > 0 {
			lo = earlier[k-1].end
		}
		seg := text[lo:hi]
		s := p - lo
		if r.start != nil {
			if s = r.start(seg, s); s < 0 {
				continue
			}
		} else if r.boundary && !atBoundary(seg, s) {
			continue
		}
		m := r.exec(seg, s)
		if r.join {
			if lo != splitLo {
				split, splitLo = joiner{buf: split.buf, pos: split.pos}, lo
			}
			if sp, ok := split.at(r, seg, s, m != nil); ok {
				sp.start, sp.end = sp.start+lo, sp.end+lo
				off = max(off, sp.end)
				found = append(found, sp)
				continue
			}
		}
		if m == nil {
			continue
		}
		off = max(off, m[1]+lo)
		sp, ok := r.span(match{seg, m}, lo)
		if ok && (sp.start > lo || lo == 0) && (sp.end < hi || hi == len(text)) {
			found = append(found, sp)
		}
	}
	return found
}

// exec runs the rule's expression at text[s:], returning submatch
// indexes into text, or nil.
func (r *secretRule) exec(text string, s int) []int {
	end := min(len(text), s+windowAhead)
	m := r.re.FindStringSubmatchIndex(text[s:end])
	if m != nil && m[1] == end-s && end < len(text) {
		// The window may have cut the match short.
		m = r.re.FindStringSubmatchIndex(text[s:])
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += s
		}
	}
	return m
}

// span turns a match into the span to replace, unless the rule rejects
// it. Offsets are shifted by base.
func (r *secretRule) span(x match, base int) (span, bool) {
	start, end := x.m[2*r.group], x.m[2*r.group+1]
	if start < 0 || start == end || strings.HasPrefix(x.text[start:end], "[REDACTED") {
		return span{}, false
	}
	kind := r.kind
	if r.vet != nil {
		k, ok := r.vet(x)
		if !ok {
			return span{}, false
		}
		if k != "" {
			kind = k
		}
	}
	return span{start: base + start, end: base + end, kind: kind}, true
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
