package shell

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Interpreters run shell commands too: python -c 'import os;
// os.system("rm -rf /")' is rm -rf /. The analysis finds the shell calls
// in a program's text — os.system, subprocess with a string or a list,
// system, exec, backticks, qx, %x, popen, child_process, os.execute —
// and reads each literal command they are given as a script of its own.
// A call whose command is not a literal leaves the program judged by the
// inline-code rules alone.

// inlineSource returns the program an interpreter call runs from its
// command line (python -c CODE, perl -e CODE, node -e CODE, awk PROGRAM)
// and the language to read it in.
func inlineSource(c *call) (lang, code string, ok bool) {
	switch {
	case isAwk(c.name):
		o := getopt(c.args, "fvFW", "file assign field-separator")
		if _, fromFile := o.value("f", "file"); fromFile || len(o.operands) == 0 {
			return "", "", false
		}
		return "awk", o.operands[0].raw, true
	case !isInterpreter(c.name):
		return "", "", false
	}
	letters, takesArg := inlineLetters(c.name)
	var b strings.Builder
	for i := 0; i < len(c.args); i++ {
		a := c.args[i].raw
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			if c.name == "deno" && strings.EqualFold(a, "eval") && i+1 < len(c.args) {
				b.WriteString(c.args[i+1].raw)
			}
			break
		}
		if name, isLong := strings.CutPrefix(a, "--"); isLong {
			name, value, hasValue := strings.Cut(name, "=")
			if name == "eval" || name == "print" {
				if !hasValue && i+1 < len(c.args) {
					i++
					value = c.args[i].raw
				}
				b.WriteString(value + "\n")
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			isCode := strings.IndexByte(letters, a[k]) >= 0
			if isCode || strings.IndexByte(takesArg, a[k]) >= 0 {
				value := a[k+1:]
				if value == "" && i+1 < len(c.args) {
					i++
					value = c.args[i].raw
				}
				if isCode {
					b.WriteString(value + "\n")
				}
				break
			}
		}
	}
	return c.name, b.String(), b.Len() > 0
}

func isAwk(name string) bool {
	return name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox-awk"
}

// shellCallRE finds the start of a call that runs a shell command, up to
// its first argument.
var shellCallRE = lazy.Regexp{Expr: `(?:(?:\b(?:os\.(?:system|popen|popen2|popen3|execl|execlp|execv|execvp|spawnl|spawnlp|posix_spawn|posix_spawnp)|` +
	`subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|pty\.spawn|` +
	`Open3\.\w+|IO\.popen|Kernel\.(?:system|exec|spawn)|os\.execute|io\.popen|` +
	`system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|execSync|spawnSync)\b|` +
	`\.(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\b)\s*\(?\s*)|` +
	`(?:\|\s*getline)|(?:\bqx\s*[({/!|])|(?:%x\s*[({])`}

// codeCommands returns the literal shell commands program code in lang
// passes to shell-running calls.
func codeCommands(lang, code string) []string {
	var out []string
	if strings.ContainsRune(code, '`') && lang != "node" && lang != "python" {
		out = append(out, backticked(code)...)
	}
	var locs [][]int
	if mayCallShell(code) {
		locs = shellCallRE.Get().FindAllStringIndex(code, -1)
	}
	for _, loc := range locs {
		rest := code[loc[1]:]
		m := code[loc[0]:loc[1]]
		switch {
		case strings.HasPrefix(m, "qx") || strings.HasPrefix(m, "%x"):
			if body, ok := delimited(code[loc[1]-1:]); ok {
				out = append(out, body)
			}
			continue
		case strings.Contains(m, "getline"):
			// "cmd" | getline: the string before the pipe.
			if s, ok := lastString(code[:loc[0]]); ok {
				out = append(out, s)
			}
			continue
		}
		if s, ok := stringArgs(rest); ok {
			out = append(out, s)
		}
	}
	if lang == "awk" {
		out = append(out, awkPipes(code)...)
	}
	if len(out) > maxVariants {
		out = out[:maxVariants]
	}
	return out
}

// mayCallShell reports, in one pass, whether code holds a word that
// starts one of the calls shellCallRE finds, so that the expression only
// runs over code that may match.
func mayCallShell(code string) bool {
	for i := 0; i < len(code); i++ {
		switch rest := code[i:]; code[i] {
		case 's':
			if strings.HasPrefix(rest, "system") || strings.HasPrefix(rest, "spawn") || strings.HasPrefix(rest, "subprocess") || strings.HasPrefix(rest, "shell_exec") {
				return true
			}
		case 'e':
			if strings.HasPrefix(rest, "exec") {
				return true
			}
		case 'p':
			if strings.HasPrefix(rest, "popen") || strings.HasPrefix(rest, "passthru") || strings.HasPrefix(rest, "pty.") || strings.HasPrefix(rest, "proc_open") || strings.HasPrefix(rest, "pcntl_exec") {
				return true
			}
		case 'g':
			if strings.HasPrefix(rest, "getoutput") || strings.HasPrefix(rest, "getline") {
				return true
			}
		case 'O', 'I', 'K', 'c':
			if strings.HasPrefix(rest, "Open3") || strings.HasPrefix(rest, "IO.popen") || strings.HasPrefix(rest, "Kernel.") || strings.HasPrefix(rest, "commands.") {
				return true
			}
		case 'q', '%':
			if strings.HasPrefix(rest, "qx") || strings.HasPrefix(rest, "%x") {
				return true
			}
		}
	}
	return false
}

// stringArgs reads the literal command at the start of s: a string
// (concatenated with + or by adjacency), or a list of strings, which is
// joined as argv.
func stringArgs(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t")
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "(\"") && !strings.HasPrefix(s, "('") {
		var argv []string
		rest := s[1:]
		for {
			rest = strings.TrimLeft(rest, " \t\n,")
			lit, n, ok := stringLiteral(rest)
			if !ok {
				break
			}
			argv = append(argv, quoteWord(lit))
			rest = rest[n:]
		}
		return strings.Join(argv, " "), len(argv) > 0
	}
	var b strings.Builder
	found := false
	for {
		s = strings.TrimLeft(s, " \t")
		lit, n, ok := stringLiteral(s)
		if !ok {
			return b.String(), found
		}
		b.WriteString(lit)
		found = true
		s = strings.TrimLeft(s[n:], " \t")
		s = strings.TrimPrefix(s, "+")
		s = strings.TrimPrefix(s, ".")
	}
}

// stringLiteral reads a quoted string at the start of s (after an
// optional Python prefix letter: r"…", b"…", f"…"), decoding its backslash
// escapes, and returns it with the length it took.
func stringLiteral(s string) (string, int, bool) {
	skip := 0
	if len(s) > 1 && strings.IndexByte("rRbBuUfF", s[0]) >= 0 && (s[1] == '"' || s[1] == '\'') {
		skip = 1
	}
	t := s[skip:]
	if t == "" || (t[0] != '"' && t[0] != '\'') {
		return "", 0, false
	}
	q := t[0]
	var b strings.Builder
	for i := 1; i < len(t); i++ {
		switch c := t[i]; {
		case c == q:
			return b.String(), skip + i + 1, true
		case c == '\\' && i+1 < len(t):
			if t[i+1] == q || t[i+1] == '\\' {
				b.WriteByte(t[i+1])
				i++
				continue
			}
			i += decodeEscape(&b, t[i+1:], false)
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// backticked returns the bodies of `…` in program text (perl, ruby, php).
func backticked(code string) []string {
	var out []string
	for {
		i := strings.IndexByte(code, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(code[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, code[i+1:i+1+j])
		code = code[i+j+2:]
	}
}

// delimited reads a qx or %x body: s starts with its opening delimiter.
func delimited(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	closer := s[0]
	switch s[0] {
	case '(':
		closer = ')'
	case '{':
		closer = '}'
	case '[':
		closer = ']'
	case '<':
		closer = '>'
	}
	if end := strings.IndexByte(s[1:], closer); end >= 0 {
		return s[1 : 1+end], true
	}
	return "", false
}

// lastString returns the last string literal in s.
func lastString(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	if s == "" || (s[len(s)-1] != '"' && s[len(s)-1] != '\'') {
		return "", false
	}
	q := s[len(s)-1]
	start := strings.LastIndexByte(s[:len(s)-1], q)
	if start < 0 {
		return "", false
	}
	return s[start+1 : len(s)-1], true
}

// awkPipes returns the commands an awk program pipes to or from: print |
// "cmd", "cmd" | getline.
func awkPipes(code string) []string {
	var out []string
	for i := strings.IndexByte(code, '|'); i >= 0; {
		if s, _, ok := stringLiteral(strings.TrimLeft(code[i+1:], " \t&")); ok {
			out = append(out, s)
		}
		next := strings.IndexByte(code[i+1:], '|')
		if next < 0 {
			break
		}
		i += next + 1
	}
	return out
}

// codeForkBomb fires on interpreter code that forks in a loop: perl -e
// 'fork while fork', python -c 'while 1: os.fork()'.
func codeForkBomb(c *call) bool {
	_, code, ok := inlineSource(c)
	if !ok {
		return false
	}
	code = strings.ToLower(code)
	if !strings.Contains(code, "fork") {
		return false
	}
	for _, loop := range [...]string{"while", "loop", "for ", "for(", "until", "repeat", "setinterval"} {
		if strings.Contains(code, loop) {
			return true
		}
	}
	return false
}
