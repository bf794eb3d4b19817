package shell

import "strings"

// forkBomb fires on a fork bomb in any spelling: a function that calls
// itself in the background or through a pipe — :(){ :|:& };:,
// bomb() { bomb & bomb; }, function f { f | f & } — in the script's own
// text, with quoted text blanked so that printing one is not running one.
func forkBomb(sv *scriptView) bool {
	src := sv.sc.src
	if !strings.ContainsAny(src, "|&") || !strings.ContainsAny(src, "{(") || !strings.Contains(src, "function") && !emptyParens(src) {
		return false
	}
	masked := maskQuoted(src)
	for i := 0; i < len(masked); i++ {
		start := -1
		switch {
		case masked[i] == '(': // NAME ( ): find where NAME starts
			j := i + 1
			for j < len(masked) && (masked[j] == ' ' || masked[j] == '\t') {
				j++
			}
			if j == len(masked) || masked[j] != ')' {
				continue
			}
			k := i
			for k > 0 && (masked[k-1] == ' ' || masked[k-1] == '\t') {
				k--
			}
			start = k
			for start > 0 && !isOperatorOrBlank(rune(masked[start-1])) {
				start--
			}
		case masked[i] == 'f' && strings.HasPrefix(masked[i:], "function"):
			start = i
		default:
			continue
		}
		name, body, next := functionAt(masked, start)
		if name == "" {
			continue
		}
		i = max(i, next-1)
		if !strings.ContainsAny(body, "|&") {
			continue
		}
		for _, tok := range strings.FieldsFunc(body, isOperatorOrBlank) {
			if tok == name {
				return true
			}
		}
	}
	return false
}

// emptyParens reports whether s holds "()", blanks allowed inside.
func emptyParens(s string) bool {
	for i := strings.IndexByte(s, '('); i >= 0; {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == ')' {
			return true
		}
		next := strings.IndexByte(s[j:], '(')
		if next < 0 {
			return false
		}
		i = j + next
	}
	return false
}

// functionAt reads a function definition starting at s[i] — NAME() {
// BODY } or function NAME { BODY } (or a ( BODY ) subshell body) — and
// returns its name, its body and where it ends; name is "" when none
// starts there.
func functionAt(s string, i int) (name, body string, end int) {
	if i > 0 && !isOperatorOrBlank(rune(s[i-1])) {
		return "", "", i
	}
	rest := s[i:]
	if after, ok := strings.CutPrefix(rest, "function"); ok && len(after) > 0 && (after[0] == ' ' || after[0] == '\t') {
		after = strings.TrimLeft(after, " \t")
		n := strings.IndexFunc(after, isOperatorOrBlank)
		if n <= 0 {
			return "", "", i
		}
		name, rest = after[:n], strings.TrimLeft(after[n:], " \t")
		if strings.HasPrefix(rest, "(") {
			rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(rest[1:], " \t"), ")"), " \t\n")
		}
	} else {
		n := strings.IndexFunc(rest, isOperatorOrBlank)
		if n <= 0 {
			return "", "", i
		}
		name, rest = rest[:n], strings.TrimLeft(rest[n:], " \t")
		if !strings.HasPrefix(rest, "(") {
			return "", "", i
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		if !strings.HasPrefix(rest, ")") {
			return "", "", i
		}
		rest = strings.TrimLeft(rest[1:], " \t\n")
	}
	if rest == "" || (rest[0] != '{' && rest[0] != '(') {
		return "", "", i
	}
	open, closer := rest[0], byte('}')
	if open == '(' {
		closer = ')'
	}
	start := len(s) - len(rest)
	depth := 0
	for j := start; j < len(s); j++ {
		switch s[j] {
		case open:
			depth++
		case closer:
			if depth--; depth == 0 {
				return name, s[start+1 : j], j + 1
			}
		}
	}
	return name, s[start+1:], len(s)
}

// isOperatorOrBlank reports whether r ends a shell word outside quotes.
func isOperatorOrBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '|' || r == '&' || r == ';' || r == '(' || r == ')' || r == '{' || r == '}' || r == '<' || r == '>'
}
