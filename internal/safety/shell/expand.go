package shell

import "strings"

// literalOutput returns what a command substitution prints when its body
// is a plain literal — $(echo rm), $(echo -n rm), $(printf rm),
// $(printf %s rm), `echo rm` — so that a command name assembled from such
// pieces reads as the name itself. Anything else returns source, the
// substitution as written: hermes does not run commands to learn what
// they print.
func literalOutput(sc *script, source string) string {
	if len(sc.cmds) != 1 {
		return source
	}
	cmd := sc.cmds[0]
	if len(cmd.redirs) > 0 || cmd.stdin != nil || len(cmd.words) < 2 {
		return source
	}
	for _, w := range cmd.words {
		if len(w.subs) > 0 {
			return source
		}
	}
	args := cmd.words[1:]
	switch cmd.words[0].raw {
	case "echo":
		for len(args) > 1 && isEchoFlag(args[0].raw) {
			args = args[1:]
		}
	case "printf":
		if len(args) == 2 && args[0].raw == "%s" {
			args = args[1:]
		} else if len(args) != 1 || strings.ContainsAny(args[0].raw, "%\\") {
			return source
		}
	default:
		return source
	}
	if len(args) != 1 || args[0].raw == "" || strings.ContainsAny(args[0].raw, " \t\n") {
		return source
	}
	return args[0].raw
}

// isEchoFlag reports whether s is an option echo understands (-n, -e, -E
// and their bundles).
func isEchoFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	return strings.Trim(s[1:], "neE") == ""
}

// expandParam reads a ${…} expansion the way that yields the most
// revealing command text, since hermes does not know the variables' values
// at run time:
//
//   - a default or alternative (${x:-rm}, ${x-rm}, ${x:=rm}, ${x:+rm})
//     yields the word, as if the variable were unset (or set);
//   - a substitution (${x/a/b}, ${x//a/b}) yields the replacement, so
//     ${0/x/r}m reads rm;
//   - a plain ${NAME} stays ${NAME} (so that r${x}m keeps its pieces),
//     and ${NAME:?message} stays ${NAME:?}, a value that is never empty;
//   - anything else stays as written.
//
// code is the part that the shell expands further (the default word),
// which the caller scans for substitutions.
func expandParam(expr string) (value, code string) {
	n := paramName(expr)
	if n == 0 {
		return "${" + expr + "}", ""
	}
	name, rest := expr[:n], expr[n:]
	switch {
	case rest == "":
		return "${" + name + "}", ""
	case strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/"):
		body := strings.TrimPrefix(strings.TrimPrefix(rest, "/"), "/")
		if i := strings.IndexByte(body, '/'); i >= 0 {
			return unquoteSimple(body[i+1:]), body[i+1:]
		}
		return "", ""
	}
	for _, op := range [...]string{":-", ":=", ":+", ":?", "-", "=", "+", "?"} {
		if word, ok := strings.CutPrefix(rest, op); ok {
			if op == ":?" || op == "?" {
				return "${" + name + op + "}", "" // never empty: the shell stops first
			}
			return unquoteSimple(word), word
		}
	}
	return "${" + expr + "}", ""
}

// paramName returns the length of the parameter name that starts expr: an
// identifier, a run of digits, or one special parameter.
func paramName(expr string) int {
	if expr == "" {
		return 0
	}
	if strings.IndexByte("@*#?$!-0123456789", expr[0]) >= 0 {
		if expr[0] >= '0' && expr[0] <= '9' {
			n := 1
			for n < len(expr) && expr[n] >= '0' && expr[n] <= '9' {
				n++
			}
			return n
		}
		if expr[0] == '#' || expr[0] == '!' { // ${#x}, ${!x}: length, indirection
			return 0
		}
		return 1
	}
	n := 0
	for n < len(expr) && isIdent(expr[n]) && !(n == 0 && expr[0] >= '0' && expr[0] <= '9') {
		n++
	}
	return n
}

// unquoteSimple removes quotes and backslashes from a default word; it is
// enough for reading a command name spelled ${x:-"rm"}.
func unquoteSimple(s string) string {
	if !strings.ContainsAny(s, "'\"\\") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}
