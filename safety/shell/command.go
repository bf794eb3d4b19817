package shell

import "strings"

// call is a simple command seen from the rules' side: leading assignments,
// shell keywords and wrapper commands (sudo, env, nohup, timeout, xargs …)
// are peeled off, so rules see the program that really runs and its
// arguments.
type call struct {
	sc  *script
	idx int // position of cmd in sc.cmds
	cmd *command
	// assigns are the leading NAME=value words.
	assigns []word
	// wraps are the wrapper commands peeled off, outermost first.
	wraps []wrapped
	// name is the program's canonical name (basename, lower case, no .exe,
	// interpreter versions dropped: python3.12 → python); "" when the
	// command runs no program (only assignments or redirections).
	name string
	exe  word
	args []word
	// line is name and argument texts joined by spaces, for regex rules.
	line string

	// env holds the variables the input sets; cwd is the directory the
	// call runs in as far as an earlier cd says ("" when unknown).
	env *env
	cwd string

	targets     []target // cached by writes
	targetsDone bool
}

// wrapped is one wrapper peeled off a call, with its own options.
type wrapped struct {
	name string
	opts []word
}

// wrapSpec describes how a wrapper command's options are read.
type wrapSpec struct {
	// argShort lists the short options that take a value (case matters:
	// sudo -h takes a host, -H does not).
	argShort string
	// argLong lists, space-separated, the long options that take a value.
	argLong string
	// query lists short options that make the wrapper not run a command
	// (command -v, sudo -l), and queryLong their long forms.
	query     string
	queryLong string
	// positional is how many operands come before the command (timeout's
	// duration, chroot's directory).
	positional int
}

// wrapperSpec returns how to read the options of name when it is a
// command that runs another command given as its arguments. It is a
// switch rather than a table so that it costs nothing at start-up.
func wrapperSpec(name string) (wrapSpec, bool) {
	switch name {
	case "sudo":
		return wrapSpec{argShort: "CDghpRrTtUuc", argLong: "close-from chdir group host prompt chroot role command-timeout type other-user user login-class",
			query: "lVve", queryLong: "list version validate edit help"}, true
	case "doas":
		return wrapSpec{argShort: "uC"}, true
	case "pkexec":
		return wrapSpec{argLong: "user"}, true
	case "run0":
		return wrapSpec{argShort: "u", argLong: "user unit description slice property setenv chdir"}, true
	case "env":
		return wrapSpec{argShort: "uCa", argLong: "unset chdir argv0"}, true
	case "exec":
		return wrapSpec{argShort: "a"}, true
	case "time":
		return wrapSpec{argShort: "fo", argLong: "format output"}, true
	case "nice":
		return wrapSpec{argShort: "n", argLong: "adjustment"}, true
	case "ionice":
		return wrapSpec{argShort: "cn", argLong: "class classdata", query: "pPu", queryLong: "pid pgid uid"}, true
	case "chrt", "taskset":
		return wrapSpec{query: "p", queryLong: "pid", positional: 1}, true
	case "timeout":
		return wrapSpec{argShort: "ks", argLong: "kill-after signal", positional: 1}, true
	case "stdbuf":
		return wrapSpec{argShort: "ioe", argLong: "input output error"}, true
	case "command":
		return wrapSpec{query: "vV"}, true
	case "caffeinate":
		return wrapSpec{argShort: "tw"}, true
	case "chroot":
		return wrapSpec{argLong: "userspec groups", positional: 1}, true
	case "strace":
		return wrapSpec{argShort: "abeEIoOpPsSuUX"}, true
	case "ltrace":
		return wrapSpec{argShort: "aeEnopsSuX"}, true
	case "proxychains":
		return wrapSpec{argShort: "f"}, true
	case "torsocks":
		return wrapSpec{argShort: "uPaw"}, true
	case "xargs":
		return wrapSpec{argShort: "aEdILnPs", argLong: "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var",
			queryLong: "help version"}, true
	case "nohup", "setsid", "builtin", "nocorrect", "noglob", "unbuffer", "busybox", "toybox":
		return wrapSpec{}, true
	}
	return wrapSpec{}, false
}

// keyword reports whether s is a shell reserved word that may precede a
// command.
func keyword(s string) bool {
	switch s {
	case "{", "}", "!", "if", "then", "elif", "else", "do", "while", "until", "fi", "done", "esac", "time", "coproc":
		return true
	}
	return false
}

// noCommand reports whether s is a reserved word after which the rest of
// the simple command names no program (for x in …, case … in).
func noCommand(s string) bool {
	switch s {
	case "for", "select", "case", "in":
		return true
	}
	return false
}

// isAssignment reports whether s is a NAME=value (or NAME+=value,
// NAME[i]=value) assignment word.
func isAssignment(s string) bool {
	if s == "" || !(s[0] == '_' || isASCIILetter(s[0])) {
		return false
	}
	i := 1
	for i < len(s) && isIdent(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '[' {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	if i < len(s) && s[i] == '+' {
		i++
	}
	return i < len(s) && s[i] == '='
}

// newCall peels cmd into a call.
func newCall(sc *script, idx int, cmd *command, e *env) *call {
	c := &call{sc: sc, idx: idx, cmd: cmd, env: e}
	words := cmd.words
	for len(words) > 0 {
		w := words[0]
		switch {
		case !w.quoted && keyword(w.text):
			words = words[1:]
			continue
		case !w.quoted && w.text == "function": // function name { body; }: read the body
			words = words[min(2, len(words)):]
			continue
		case !w.quoted && noCommand(w.text):
			words = nil
			continue
		case isAssignment(w.raw):
			c.assigns = append(c.assigns, w)
			words = words[1:]
			continue
		}
		name := programName(e.resolve(w.text))
		spec, ok := wrapperSpec(name)
		if !ok {
			c.exe, c.name, c.args = w, name, words[1:]
			break
		}
		opts, rest, runs := spec.split(words[1:])
		c.wraps = append(c.wraps, wrapped{name: name, opts: opts})
		if !runs {
			rest = nil
		}
		words = rest
	}
	var b strings.Builder
	b.WriteString(c.name)
	for _, a := range c.args {
		b.WriteByte(' ')
		b.WriteString(strings.ReplaceAll(a.text, "\n", " "))
	}
	c.line = b.String()
	return c
}

// split separates a wrapper's options from the command it runs; runs is
// false when an option makes it run none.
func (s wrapSpec) split(args []word) (opts, rest []word, runs bool) {
	i, positional := 0, s.positional
	for i < len(args) {
		a := args[i].raw
		switch {
		case a == "--":
			return args[:i+1], args[i+1:], true
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if matchLong(name, s.queryLong) != "" {
				return args, nil, false
			}
			if !hasValue && matchLong(name, s.argLong) != "" {
				i++
			}
		case len(a) > 1 && a[0] == '-' && !isDigits(a[1:]):
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(s.query, a[k]) >= 0 {
					return args, nil, false
				}
				if strings.IndexByte(s.argShort, a[k]) >= 0 {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
		case len(a) > 1 && a[0] == '-': // nice -10, kill-style numbers
		case positional > 0:
			positional--
		default:
			return args[:i], args[i:], true
		}
		i++
	}
	return args, nil, true
}

// hasWrapper reports whether the call was run through the named wrapper.
func (c *call) hasWrapper(name string) bool {
	for _, w := range c.wraps {
		if w.name == name {
			return true
		}
	}
	return false
}
