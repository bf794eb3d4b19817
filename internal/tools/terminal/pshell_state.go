package terminal

import (
	"strconv"
	"strings"
)

// What the approver of a command learns about the persistent shell is
// read from its reports: the variables that differ from when the shell
// started (a fresh shell's are what every command already ran with) and
// the functions it defines. bash prints declare -p one declaration per
// line, quoting values with "…" or, when they hold control characters,
// $'…'.

// declaration is one line of declare -p.
type declaration struct {
	flags string // "--", "-x", "-ar" …
	name  string
	// raw is the value as printed; set is false for a variable declared
	// without one.
	raw string
	set bool
}

// parseDeclarations reads declare -p output into declarations by name.
func parseDeclarations(text string) map[string]declaration {
	decls := make(map[string]declaration, 96)
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "declare ")
		if !ok {
			continue
		}
		flags, rest, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		name, raw, set := strings.Cut(rest, "=")
		decls[name] = declaration{flags: flags, name: name, raw: raw, set: set}
	}
	return decls
}

// readonly reports whether the declaration has the readonly attribute.
func (d declaration) readonly() bool { return strings.Contains(d.flags, "r") }

// value returns the variable's value: an array's elements are joined by
// spaces, in the order printed.
func (d declaration) value() string {
	if !d.set {
		return ""
	}
	if strings.ContainsAny(d.flags, "aA") && strings.HasPrefix(d.raw, "(") {
		var elems []string
		s := d.raw[1:]
		for {
			s = strings.TrimLeft(s, " ")
			if s == "" || s[0] != '[' {
				break
			}
			if strings.HasPrefix(s, "[$") || strings.HasPrefix(s, `["`) {
				_, s = unquoteWord(s[1:])
				s = strings.TrimPrefix(s, "]")
			} else if i := strings.Index(s, "]="); i >= 0 {
				s = s[i+1:]
			} else {
				break
			}
			var v string
			v, s = unquoteWord(strings.TrimPrefix(s, "="))
			elems = append(elems, v)
		}
		return strings.Join(elems, " ")
	}
	v, _ := unquoteWord(d.raw)
	return v
}

// unquoteWord reads one word at the start of s as declare -p writes it —
// "…" (where \ escapes " \ $ and `), $'…' (ANSI-C escapes), or bare up
// to a blank — and returns its value and the rest of s.
func unquoteWord(s string) (string, string) {
	var b strings.Builder
	switch {
	case strings.HasPrefix(s, `"`):
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"':
				return b.String(), s[i+1:]
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			default:
				b.WriteByte(c)
			}
		}
		return b.String(), ""
	case strings.HasPrefix(s, "$'"):
		for i := 2; i < len(s); i++ {
			c := s[i]
			if c == '\'' {
				return b.String(), s[i+1:]
			}
			if c != '\\' || i+1 == len(s) {
				b.WriteByte(c)
				continue
			}
			i += ansiEscape(&b, s[i+1:])
		}
		return b.String(), ""
	}
	end := strings.IndexAny(s, " )")
	if end < 0 {
		end = len(s)
	}
	return s[:end], s[end:]
}

// ansiEscape writes the character the escape sequence s starts with
// stands for (s follows the backslash) and returns how many bytes of s it
// took.
func ansiEscape(b *strings.Builder, s string) int {
	c := s[0]
	if i := strings.IndexByte("abeEfnrtv\\'\"?", c); i >= 0 {
		b.WriteByte("\a\b\x1b\x1b\f\n\r\t\v\\'\"?"[i])
		return 1
	}
	digits := func(from, max, base int) (int, int) {
		n, v := 0, 0
		for n < max && from+n < len(s) {
			d, err := strconv.ParseUint(s[from+n:from+n+1], base, 8)
			if err != nil {
				break
			}
			v = v*base + int(d)
			n++
		}
		return n, v
	}
	switch c {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, v := digits(0, 3, 8)
		b.WriteByte(byte(v))
		return n
	case 'x':
		if n, v := digits(1, 2, 16); n > 0 {
			b.WriteByte(byte(v))
			return 1 + n
		}
	case 'u', 'U':
		max := 4
		if c == 'U' {
			max = 8
		}
		if n, _ := digits(1, max, 16); n > 0 {
			r, _ := strconv.ParseUint(s[1:1+n], 16, 32)
			b.WriteRune(rune(r))
			return 1 + n
		}
	}
	b.WriteByte('\\')
	b.WriteByte(c)
	return 1
}

// volatile reports whether a variable is bash's own and changes by
// itself, or belongs to the shell's driver, so that it says nothing about
// what the session's commands did.
func volatile(name string) bool {
	if strings.HasPrefix(name, "__hermes_") || strings.HasPrefix(name, "BASH") {
		return true
	}
	switch name {
	case "_", "PWD", "SHLVL", "SHELLOPTS", "BASHOPTS", "DIRSTACK", "FUNCNAME", "GROUPS", "PIPESTATUS", "RANDOM", "SRANDOM",
		"SECONDS", "LINENO", "EPOCHREALTIME", "EPOCHSECONDS", "HISTCMD", "COLUMNS", "LINES", "OPTIND", "PPID", "UID", "EUID",
		"COMP_WORDBREAKS":
		return true
	}
	return false
}

// changedVars returns the variables of now that differ from base: set or
// changed since the shell started, by name, with their values.
func changedVars(base, now map[string]declaration) map[string]string {
	var out map[string]string
	for name, d := range now {
		if volatile(name) || !d.set {
			continue
		}
		if b, ok := base[name]; ok && b.raw == d.raw {
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[name] = d.value()
		if strings.Contains(d.flags, "n") {
			// A nameref reads as the variable it names.
			out[name] = now[out[name]].value()
		}
	}
	return out
}

// parseFunctions splits declare -f output into definitions by name. bash
// starts each with a line "NAME () " and indents what follows, so a
// definition runs from its header to the next.
func parseFunctions(text string) map[string]string {
	if text == "" {
		return nil
	}
	funcs := make(map[string]string)
	name, from := "", 0
	flush := func(to int) {
		if name != "" {
			funcs[name] = strings.TrimRight(text[from:to], "\n")
		}
	}
	for at := 0; at < len(text); {
		line, _, _ := strings.Cut(text[at:], "\n")
		if n, ok := strings.CutSuffix(line, " () "); ok && n != "" && !strings.ContainsAny(n, " \t()$'\"") {
			flush(at)
			name, from = n, at
		}
		at += len(line) + 1
	}
	flush(len(text))
	return funcs
}
