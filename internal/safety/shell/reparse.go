package shell

import (
	"strings"
)

// X="rm -rf"; $X ~ runs rm: the shell expands $X and splits the result
// into words before it looks for a program. The analysis does the same
// with what it knows: each call whose words hold expansions with known
// values (variables the input set, substitutions whose output is known
// text) is rebuilt as the command line it becomes, and that line is
// parsed and judged again. Values are escaped so that they only split at
// blanks, as the shell splits them, and never turn into operators.

// rebuilt returns the command lines c becomes once its expansions are
// replaced by their known values, or nil when expansion changes nothing.
// A call whose program is unknown is also read without it (as if the
// unknown word were empty, or a wrapper such as sudo): $X rm -rf / runs
// rm -rf / when X is empty.
func (a *analysis) rebuilt(c *call) []string {
	if !anyExpands(c.cmd.words) {
		return nil
	}
	e := a.env
	lines := []string{""}
	changed := false
	words := c.cmd.words
	for len(words) > 0 && isAssignment(words[0].raw) {
		words = words[1:]
	}
	for _, w := range words {
		var parts []string
		if !w.expands {
			parts = []string{quoteWord(w.raw)}
		} else {
			values, known := e.wordValues(w)
			changed = changed || known
			for _, v := range values {
				if w.splits {
					changed = changed || strings.ContainsAny(v, " \t\n")
					parts = append(parts, escapeSplit(v))
				} else {
					parts = append(parts, quoteWord(v))
				}
			}
		}
		lines = cross(lines, parts)
	}
	var out []string
	if changed {
		out = lines
	}
	if c.dynamic && len(c.args) > 0 {
		out = append(out, quoteWords(c.args))
	}
	return out
}

// anyExpands reports whether any of ws holds an expansion.
func anyExpands(ws []word) bool {
	for _, w := range ws {
		if w.expands {
			return true
		}
	}
	return false
}

// cross returns each line followed by each part, up to maxVariants.
func cross(lines, parts []string) []string {
	var out []string
	for _, l := range lines {
		for _, p := range parts {
			if len(out) == maxVariants {
				return out
			}
			if l != "" {
				p = l + " " + p
			}
			out = append(out, p)
		}
	}
	return out
}

// wordValues returns the raw texts w may expand to, with known variables
// and the known output of its pending substitutions in place, and
// whether any expansion was known.
func (e *env) wordValues(w word) ([]string, bool) {
	raw, known := w.raw, false
	for _, p := range w.pending {
		if out, ok := e.scriptOutput(p.sc); ok {
			raw = strings.Replace(raw, p.source, strings.TrimRight(out, "\n"), 1)
			known = true
		}
	}
	values := e.substitute(raw, func(s string) string { return s })
	known = known || len(values) > 1 || values[0] != raw
	return values, known
}

// dynamicWord reports whether w's value is only known when the command
// runs: it holds an expansion the analysis cannot resolve.
func (e *env) dynamicWord(w word) bool {
	if !w.expands {
		return false
	}
	values, _ := e.wordValues(w)
	for _, v := range values {
		for _, p := range w.pending {
			if strings.Contains(v, p.source) {
				return true
			}
		}
		for i := 0; i < len(v); i++ {
			if v[i] == '$' {
				if _, ok := parseRef(v[i:]); ok {
					return true
				}
			}
		}
	}
	return false
}

// quoteWords returns the raw texts of ws as a command line that parses
// back into the same words.
func quoteWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = quoteWord(w.raw)
	}
	return strings.Join(parts, " ")
}

// quoteWord returns s as one shell word: as it is when it holds nothing
// the shell treats specially, else single-quoted.
func quoteWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r == '/' || r == ',' || r == ':' || r == '=' || r == '+' || r == '@' || r == '%' || r == '~' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// escapeSplit returns an expanded value as shell text that splits into
// words at blanks and newlines, as an unquoted expansion does, and
// otherwise means itself: quotes, operators, $ and # lose their meaning.
// Glob characters and ~ keep theirs, since globbing follows expansion and
// the path rules read ~ wherever it is.
func escapeSplit(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case ';', '&', '|', '<', '>', '(', ')', '\'', '"', '\\', '`', '$', '#', '{', '}', '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
