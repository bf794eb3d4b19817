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

	// env holds the variables the input sets; dirs are the directories
	// the call may run in (none when unknown), see dirTracker.
	env  *env
	dirs []string
	// dynamic is set when the program's name is only known when the
	// command runs: an unknown variable or command substitution.
	dynamic bool
	// runsWritten is set when the call runs a file the same input
	// wrote (see files).
	runsWritten bool
	// named are the words in command position, as written: the wrappers
	// and the program; any of them may be a shell function (see State).
	named []string
	// lookup is set when the program is found through a PATH that holds
	// a relative or temporary directory (see riskyPath).
	lookup bool

	targets     []target // cached by writes
	targetsDone bool
	spelled     map[string][]string // cached by spellings, at env version spelledAt
	spelledAt   int
	// expandedAt is the env version the call's expansions were last read
	// at (see analysis.reexpand).
	expandedAt int
}

// wrapped is one wrapper peeled off a call, with its own options and the
// command it runs (the rest of the words).
type wrapped struct {
	name string
	opts []word
	rest []word
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
		c.named = append(c.named, w.raw)
		name := programName(e.resolve(w.text))
		spec, ok := wrapperSpec(name)
		var opts, rest []word
		runs := false
		if ok {
			opts, rest, runs = spec.split(words[1:])
			ok = spec.isWrapper(opts)
		}
		if !ok {
			c.exe, c.name, c.args = w, name, words[1:]
			c.dynamic = e.dynamicWord(w)
			c.lookup = !strings.Contains(w.raw, "/") && !isBuiltin(name) && e.riskyPath()
			break
		}
		c.wraps = append(c.wraps, wrapped{name: name, opts: opts, rest: rest})
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

// hasWrapper reports whether the call was run through the named wrapper.
func (c *call) hasWrapper(name string) bool {
	for _, w := range c.wraps {
		if w.name == name {
			return true
		}
	}
	return false
}
