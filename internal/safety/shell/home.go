package shell

import "strings"

// foldHomes rewrites every spelling of a home directory in lower-cased
// text to "~", and $hermes_home to "~/.hermes", wherever one starts a word
// or follows "=" or ":" (of=$HOME/x, PATH=~/bin). See Normalize for why the
// folding is broad. The result is stable: "~" is never folded again.
func foldHomes(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$' || c == '~' || c == '/':
		case i+1 < len(s) && s[i+1] == ':' && isASCIILetter(c):
		default:
			continue
		}
		if i > 0 && !foldBoundary(s[i-1]) {
			continue
		}
		if repl, n := homeAt(s[i:]); n > 0 {
			if repl == s[i:i+n] {
				continue // already "~"
			}
			b.WriteString(s[done:i])
			b.WriteString(repl)
			done = i + n
			i = done - 1
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// foldBoundary reports whether a home spelling may start after c.
func foldBoundary(c byte) bool { return isBoundary(c) || c == '=' || c == ':' || c == ',' || c == '{' }

// homeAt returns the replacement for a home spelling at the start of s and
// how many bytes it covers, or 0 when there is none.
func homeAt(s string) (string, int) {
	switch s[0] {
	case '$':
		for _, h := range [...]struct{ spelling, repl string }{
			{"${hermes_home}", "~/.hermes"}, {"$hermes_home", "~/.hermes"},
			{"${home}", "~"}, {"$home", "~"},
		} {
			if strings.HasPrefix(s, h.spelling) && (h.spelling[1] == '{' || endsName(s, len(h.spelling))) {
				return h.repl, len(h.spelling)
			}
		}
	case '~':
		if len(s) > 1 && (s[1] == '+' || s[1] == '-') {
			return "", 0 // ~+ and ~- are $PWD and $OLDPWD
		}
		n := 1 + userName(s[1:])
		if endsPath(s, n) {
			return "~", n
		}
	case '/':
		for _, p := range [...]string{"/home/", "/users/"} {
			if strings.HasPrefix(s, p) {
				if u := userName(s[len(p):]); u > 0 && endsPath(s, len(p)+u) {
					return "~", len(p) + u
				}
			}
		}
		if strings.HasPrefix(s, "/root") && endsPath(s, 5) {
			return "~", 5
		}
	default:
		if len(s) > 9 && isASCIILetter(s[0]) && strings.HasPrefix(s[1:], ":/users/") {
			if u := userName(s[9:]); u > 0 && endsPath(s, 9+u) {
				return "~", 9 + u
			}
		}
	}
	return "", 0
}

// userName returns the length of the login name at the start of s. Glob
// characters and a leading dot are not part of one, so /home/* and
// /home/.. stay as they are.
func userName(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || n > 0 && (c == '.' || c == '-') || c >= 0x80 {
			n++
			continue
		}
		break
	}
	return n
}

// endsName reports whether a variable name ends at s[n].
func endsName(s string, n int) bool { return n == len(s) || !isIdent(s[n]) }

// endsPath reports whether a path component ends at s[n].
func endsPath(s string, n int) bool { return n == len(s) || s[n] == '/' || foldBoundary(s[n]) }
