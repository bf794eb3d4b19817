package shell

import (
	"regexp"
	"strings"
)

// The text filters a payload may pass through on its way to a shell: tr's
// character translation and sed's s and y commands, computed exactly
// where they are simple enough, and reported unknown otherwise.

// translate runs tr SET1 SET2 (and tr -d SET): ranges (a-z), escapes
// (\n, \\, \NNN) and the classes [:lower:], [:upper:], [:digit:],
// [:space:] are understood; -c makes the output unknown.
func translate(args []string, in string) (string, bool) {
	del, squeeze := false, false
	var sets []string
	for _, a := range args {
		switch {
		case a == "--delete":
			del = true
		case a == "--squeeze-repeats":
			squeeze = true
		case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "ds") == "":
			del = del || strings.Contains(a, "d")
			squeeze = squeeze || strings.Contains(a, "s")
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return "", false
		default:
			sets = append(sets, trSet(a))
		}
	}
	switch {
	case del && len(sets) >= 1:
		in = strings.Map(func(r rune) rune {
			if strings.ContainsRune(sets[0], r) {
				return -1
			}
			return r
		}, in)
		sets = sets[1:]
	case len(sets) == 2:
		from, to := []rune(sets[0]), []rune(sets[1])
		if len(to) == 0 {
			return "", false
		}
		in = strings.Map(func(r rune) rune {
			for i := len(from) - 1; i >= 0; i-- {
				if from[i] == r {
					return to[min(i, len(to)-1)]
				}
			}
			return r
		}, in)
		sets = sets[1:]
	case !squeeze:
		return "", false
	}
	if squeeze && len(sets) == 1 {
		var b strings.Builder
		var last rune = -1
		for _, r := range in {
			if r == last && strings.ContainsRune(sets[0], r) {
				continue
			}
			b.WriteRune(r)
			last = r
		}
		in = b.String()
	}
	return in, true
}

// trSet expands one tr set to its characters in order.
func trSet(s string) string {
	for class, chars := range map[string]string{
		"[:lower:]": "abcdefghijklmnopqrstuvwxyz", "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
		"[:digit:]": "0123456789", "[:space:]": " \t\n\r\v\f", "[:blank:]": " \t",
	} {
		s = strings.ReplaceAll(s, class, chars)
	}
	var lit strings.Builder
	writeEscaped(&lit, s)
	r := []rune(lit.String())
	var out []rune
	for i := 0; i < len(r); i++ {
		if i+2 < len(r) && r[i+1] == '-' && r[i] <= r[i+2] && r[i+2]-r[i] < 256 {
			for c := r[i]; c <= r[i+2]; c++ {
				out = append(out, c)
			}
			i += 2
			continue
		}
		out = append(out, r[i])
	}
	return string(out)
}

// sedSubstitute runs a sed script made only of s/…/…/ and y/…/…/
// commands (given as the first operand or with -e), with GNU regular
// expressions translated to Go's; anything else is unknown.
func sedSubstitute(args []string, in string) (string, bool) {
	var scripts []string
	ere := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case a == "-E" || a == "-r" || a == "--regexp-extended":
			ere = true
		case a == "-n" || strings.HasPrefix(a, "-i") || a == "-f" || strings.HasPrefix(a, "--"):
			return "", false
		case strings.HasPrefix(a, "-"):
		case len(scripts) == 0:
			scripts = append(scripts, a)
		default:
			return "", false // a file operand: its content is not known
		}
	}
	for _, sc := range scripts {
		for _, cmd := range strings.Split(sc, ";") {
			var ok bool
			if in, ok = sedCommand(strings.TrimSpace(cmd), in, ere); !ok {
				return "", false
			}
		}
	}
	return in, len(scripts) > 0
}

// sedCommand applies one s or y command.
func sedCommand(cmd, in string, ere bool) (string, bool) {
	if len(cmd) < 2 || (cmd[0] != 's' && cmd[0] != 'y') {
		return "", cmd == ""
	}
	parts := strings.Split(cmd[2:], cmd[1:2])
	if len(parts) != 3 {
		return "", false
	}
	if cmd[0] == 'y' {
		from, to := []rune(parts[0]), []rune(parts[1])
		if len(from) != len(to) {
			return "", false
		}
		return translate([]string{parts[0], parts[1]}, in)
	}
	pat := parts[0]
	if !ere {
		pat = breToERE(pat)
	}
	flags := parts[2]
	if strings.Contains(flags, "i") || strings.Contains(flags, "I") {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile("(?m)" + pat)
	if err != nil || strings.Trim(flags, "giI") != "" {
		return "", false
	}
	rep := strings.NewReplacer(`\&`, "&", "&", "${0}", `\n`, "\n", "$", "$$").Replace(parts[1])
	for d := '1'; d <= '9'; d++ {
		rep = strings.ReplaceAll(rep, `\`+string(d), "${"+string(d)+"}")
	}
	if strings.Contains(flags, "g") {
		return re.ReplaceAllString(in, rep), true
	}
	return mapLines(in, func(l string) string {
		done := false
		return re.ReplaceAllStringFunc(l, func(m string) string {
			if done {
				return m
			}
			done = true
			return re.ReplaceAllString(m, rep)
		})
	}), true
}

// breToERE turns a basic regular expression into an extended one.
func breToERE(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte("(){}+?|", p[i+1]) >= 0:
			b.WriteByte(p[i+1])
			i++
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case strings.IndexByte("(){}+?|", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
