package shell

import (
	"strconv"
	"strings"
)

// Parameter expansions that reach the analysis unexpanded: the lexer
// keeps $name, ${name}, ${!name} and ${name%pattern}-style forms as
// written, and the environment expands them once it knows the values the
// command gives its variables. rm -rf ${HOME%/*} removes the directory
// above the home directory; the analysis must see that path, not a
// variable.

// paramRef is one parameter expansion.
type paramRef struct {
	name     string // lower case
	op       string // what follows the name in braces: "%/*", ":0:3", ""
	indirect bool   // ${!name}: the variable named by name's value
	n        int    // length of the reference in the text
}

// parseRef reads the parameter expansion s starts with ($name, $1, $@,
// ${…}); ok is false when s starts with none.
func parseRef(s string) (r paramRef, ok bool) {
	if len(s) < 2 || s[0] != '$' {
		return r, false
	}
	if s[1] == '{' {
		end := matchBrace(s, 2)
		if end >= len(s) {
			return r, false
		}
		expr := s[2:end]
		if len(expr) > 1 && expr[0] == '!' {
			r.indirect, expr = true, expr[1:]
		}
		length := false
		if len(expr) > 1 && expr[0] == '#' {
			length, expr = true, expr[1:]
		}
		n := paramName(expr)
		if n == 0 {
			return r, false
		}
		r.name, r.op, r.n = strings.ToLower(expr[:n]), expr[n:], end+1
		if length {
			r.op = "#len"
		}
		return r, true
	}
	c := s[1]
	switch {
	case strings.IndexByte("@*#?$!-0123456789", c) >= 0:
		return paramRef{name: s[1:2], n: 2}, true
	case c == '_' || isASCIILetter(c):
		n := 2
		for n < len(s) && isIdent(s[n]) {
			n++
		}
		return paramRef{name: strings.ToLower(s[1:n]), n: n}, true
	}
	return r, false
}

// apply returns what the reference expands to when its variable holds v.
func (r paramRef) apply(v string) string {
	op := r.op
	word := func(k int) string { return unquoteSimple(op[k:]) }
	switch {
	case op == "":
		return v
	case op == "#len":
		return strconv.Itoa(len(v))
	case strings.HasPrefix(op, "##"):
		return trimPattern(v, word(2), true, true)
	case strings.HasPrefix(op, "#"):
		return trimPattern(v, word(1), true, false)
	case strings.HasPrefix(op, "%%"):
		return trimPattern(v, word(2), false, true)
	case strings.HasPrefix(op, "%"):
		return trimPattern(v, word(1), false, false)
	case strings.HasPrefix(op, ":-"), strings.HasPrefix(op, ":="):
		if v == "" {
			return word(2)
		}
		return v
	case strings.HasPrefix(op, ":+"):
		if v != "" {
			return word(2)
		}
		return ""
	case strings.HasPrefix(op, "+"):
		return word(1)
	case strings.HasPrefix(op, ":") && len(op) > 1:
		return substring(v, op[1:])
	case strings.HasPrefix(op, "/"):
		return replacePattern(v, op[1:])
	case strings.HasPrefix(op, "[") && strings.HasSuffix(op, "]"):
		return element(v, op[1:len(op)-1])
	}
	return v // case changes, @Q and the like keep the text
}

// element applies ${v[index]} to an array held as blank-separated
// elements (see arrayAssignment): @ and * are all of them.
func element(v, index string) string {
	if index == "@" || index == "*" {
		return v
	}
	fields := strings.Fields(v)
	i, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil {
		return v
	}
	if i < 0 {
		i += len(fields)
	}
	if i < 0 || i >= len(fields) {
		return ""
	}
	return fields[i]
}

// substring applies ${v:offset} or ${v:offset:length}.
func substring(v, spec string) string {
	offs, length, hasLen := strings.Cut(spec, ":")
	off, err := strconv.Atoi(strings.TrimSpace(offs))
	if err != nil {
		return v
	}
	if off < 0 {
		off = max(len(v)+off, 0)
	}
	off = min(off, len(v))
	v = v[off:]
	if hasLen {
		if n, err := strconv.Atoi(strings.TrimSpace(length)); err == nil {
			if n < 0 {
				n = max(len(v)+n, 0)
			}
			v = v[:min(n, len(v))]
		}
	}
	return v
}

// replacePattern applies ${v/pattern/replacement} (body after the first
// slash; a second slash means every match).
func replacePattern(v, body string) string {
	all := strings.HasPrefix(body, "/")
	body = strings.TrimPrefix(body, "/")
	pat, rep, _ := strings.Cut(body, "/")
	pat, rep = unquoteSimple(pat), unquoteSimple(rep)
	if pat == "" {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		n := -1
		for j := len(v); j > i; j-- { // the longest match at i
			if shellMatch(pat, v[i:j]) {
				n = j - i
				break
			}
		}
		if n <= 0 {
			b.WriteByte(v[i])
			i++
			continue
		}
		b.WriteString(rep)
		i += n
		if !all {
			b.WriteString(v[i:])
			return b.String()
		}
	}
	return b.String()
}

// trimPattern removes the shortest (or longest) prefix or suffix of v
// that pattern matches.
func trimPattern(v, pattern string, prefix, longest bool) string {
	for k := 0; k <= len(v); k++ {
		n := k
		if longest {
			n = len(v) - k
		}
		if prefix && shellMatch(pattern, v[:n]) {
			return v[n:]
		}
		if !prefix && shellMatch(pattern, v[len(v)-n:]) {
			return v[:len(v)-n]
		}
	}
	return v
}

// shellMatch reports whether s matches the shell pattern pat as a whole:
// * any run of characters, ? one, [...] a set ([!...] or [^...] its
// complement), a backslash quotes the next character. It backtracks only
// to the last star, so it runs in time proportional to len(pat)*len(s).
func shellMatch(pat, s string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pat) {
			switch c := pat[p]; c {
			case '*':
				starP, starI = p, i
				p++
				continue
			case '?':
				p, i = p+1, i+1
				continue
			case '[':
				if end, ok := matchClass(pat[p:], s[i]); end > 0 {
					if ok {
						p, i = p+end, i+1
						continue
					}
					break
				}
				if s[i] == '[' {
					p, i = p+1, i+1
					continue
				}
			case '\\':
				if p+1 < len(pat) && pat[p+1] == s[i] {
					p, i = p+2, i+1
					continue
				}
			default:
				if c == s[i] {
					p, i = p+1, i+1
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP+1, starI
	}
	return strings.Trim(pat[p:], "*") == ""
}

// matchClass reads the bracket expression that pat starts with and
// reports its length (0 when it is not one) and whether c is in it.
func matchClass(pat string, c byte) (int, bool) {
	i := 1
	negate := i < len(pat) && (pat[i] == '!' || pat[i] == '^')
	if negate {
		i++
	}
	in := false
	for first := true; i < len(pat); first = false {
		if pat[i] == ']' && !first {
			return i + 1, in != negate
		}
		lo := pat[i]
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			in = in || lo <= c && c <= pat[i+2]
			i += 3
			continue
		}
		in = in || lo == c
		i++
	}
	return 0, false
}
