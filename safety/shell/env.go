package shell

import (
	"path"
	"strings"
)

// Without running anything, a command can still name a path in pieces:
// through a variable set earlier (d=/etc; rm -rf $d), a for loop (for d in
// / /etc; do rm -rf $d; done), brace expansion (rm -rf {/,}) or the
// directory it changed into (cd / && rm -rf *). The path rules read every
// spelling a target may take, so that the hardline floor cannot be
// stepped around that way.

// maxVariants bounds how many spellings one word is expanded into.
const maxVariants = 32

// env is what the commands of one input set that later commands read:
// variables, by lower-cased name, with every value they are given.
type env struct {
	vars map[string][]string
}

// collect records the assignments of a script's commands: NAME=value
// prefixes, export/declare/local/readonly/typeset NAME=value, and the
// words of for NAME in WORDS.
func (e *env) collect(sc *script) {
	for _, cmd := range sc.cmds {
		ws := cmd.words
		if len(ws) >= 3 && !ws[0].quoted && (ws[0].text == "for" || ws[0].text == "select") && ws[2].text == "in" {
			for _, v := range ws[3:] {
				e.set(ws[1].text, v.text)
			}
			continue
		}
		declaration := len(ws) > 0 && !ws[0].quoted && isDeclaration(ws[0].text)
	words:
		for i, w := range ws {
			switch {
			case isAssignment(w.raw):
				name, value, _ := strings.Cut(w.text, "=")
				e.set(strings.TrimSuffix(name, "+"), value)
			case declaration && (i == 0 || strings.HasPrefix(w.raw, "-")):
			case declaration && !strings.Contains(w.raw, "="):
			default:
				break words // the command itself: its arguments assign nothing
			}
		}
	}
}

func isDeclaration(s string) bool {
	switch s {
	case "export", "declare", "local", "readonly", "typeset":
		return true
	}
	return false
}

func (e *env) set(name, value string) {
	if e.vars == nil {
		e.vars = make(map[string][]string)
	}
	if len(e.vars[name]) < maxVariants {
		e.vars[name] = append(e.vars[name], value)
	}
}

// expand returns the spellings text may take: with each known variable
// replaced by each of its values, and brace lists expanded.
func (e *env) expand(text string) []string {
	out := []string{text}
	if e != nil && strings.Contains(text, "$") {
		out = e.substitute(text)
	}
	if strings.Contains(text, "{") {
		var braced []string
		for _, s := range out {
			braced = append(braced, expandBraces(s, maxVariants)...)
		}
		out = braced
	}
	return out
}

// substitute replaces $name and ${name} references to known variables.
func (e *env) substitute(text string) []string {
	out := []string{text}
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			continue
		}
		name, n := varRef(text[i:])
		values, known := e.vars[name]
		if n == 0 || !known {
			continue
		}
		var next []string
		for _, s := range out {
			ref := text[i : i+n]
			for _, v := range values {
				if len(next) < maxVariants {
					next = append(next, strings.Replace(s, ref, v, 1))
				}
			}
		}
		out = next
	}
	return out
}

// varRef returns the name of the variable s starts with ($name, ${name})
// and the length of the reference, or 0.
func varRef(s string) (string, int) {
	if strings.HasPrefix(s, "${") {
		if end := strings.IndexByte(s, '}'); end > 2 && paramName(s[2:end]) == end-2 {
			return s[2:end], end + 1
		}
		return "", 0
	}
	n := 1
	for n < len(s) && isIdent(s[n]) {
		n++
	}
	if n == 1 {
		return "", 0
	}
	return s[1:n], n
}

// resolve returns a command word with known variables replaced and
// unknown ones dropped, so that r${x}m reads rm when x is unset.
func (e *env) resolve(text string) string {
	if !strings.Contains(text, "$") {
		return text
	}
	s := text
	if e != nil {
		s = e.substitute(text)[0]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			if _, n := varRef(s[i:]); n > 0 {
				i += n - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	if b.Len() == 0 {
		return text
	}
	return b.String()
}

// expandBraces expands the first brace list in s ({a,b}, recursively the
// rest), up to limit results. Text without a list comes back unchanged.
func expandBraces(s string, limit int) []string {
	open := -1
	depth, comma := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 {
				open, comma = i, false
			}
			depth++
		case ',':
			comma = comma || depth == 1
		case '}':
			if depth == 0 {
				continue
			}
			if depth--; depth == 0 && comma {
				var out []string
				for _, alt := range splitTop(s[open+1 : i]) {
					for _, rest := range expandBraces(s[:open]+alt+s[i+1:], limit-len(out)) {
						if len(out) < limit {
							out = append(out, rest)
						}
					}
				}
				return out
			}
		}
	}
	return []string{s}
}

// splitTop splits a brace list's body at its top-level commas.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// trackDirs sets each call's working directory, as far as the cd and
// pushd before it in the same script tell; "" is unknown.
func trackDirs(sv *scriptView) {
	cwd := ""
	for _, c := range sv.calls {
		c.cwd = cwd
		if c.name != "cd" && c.name != "pushd" {
			continue
		}
		o := getopt(c.args, "", "")
		switch {
		case len(o.operands) == 0:
			cwd = "~"
		case strings.HasPrefix(o.operands[0].text, "/") || strings.HasPrefix(o.operands[0].text, "~"):
			cwd = o.operands[0].text
		case cwd != "" && o.operands[0].text != "-":
			cwd = path.Join(cwd, o.operands[0].text)
		default:
			cwd = ""
		}
	}
}

// spellings returns every path a target word of c may name: expanded by
// c's environment and, when relative, joined to its known directory.
func (c *call) spellings(text string) []string {
	out := c.env.expand(text)
	if c.cwd == "" {
		return out
	}
	for _, s := range out {
		if s != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "$") {
			out = append(out, path.Join(c.cwd, s))
		}
	}
	return out
}
