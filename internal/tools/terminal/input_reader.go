package terminal

import (
	"slices"
	"strings"
)

// inputReader is what reads a background process's stdin, told from the
// command line the process was started with, and so how what is written
// to it is checked before it is written (see checkInput). Writes to a
// program that only reads data (cat, a prompt waiting for "y") are not
// checked.
type inputReader struct {
	// shell is set when a shell reads the input (bash, sh -s, ssh host,
	// sudo -s, su, at): every line of it is a command.
	shell bool
	// code are the commands that read the input as a program or as
	// commands of their own language (python3 -i, psql, sqlite3 db, xargs
	// rm, gdb), as written: what is written is checked as if piped into
	// them.
	code []string
	// opaque is set when what reads the input cannot be told from the
	// command line (a command named by a variable, eval, a shell -c
	// string built at run time, a container's default command): what is
	// written is checked as if piped into the whole command line.
	opaque bool
}

// reads reports whether what is written to the process is checked.
func (r inputReader) reads() bool { return r.shell || len(r.code) > 0 || r.opaque }

// maxNesting bounds how deep command strings inside command strings are
// read (sh -c "ssh h 'sudo -s'"); deeper is opaque.
const maxNesting = 8

// readerOf classifies a background command line.
func readerOf(command string) inputReader {
	var r inputReader
	r.line(command, 0)
	return r
}

// line reads a command line: every simple command of it, and the command
// lines of its substitutions, which all run with the shell's stdin.
func (r *inputReader) line(line string, depth int) {
	if depth > maxNesting {
		r.opaque = true
		return
	}
	lx := lexShell(line, true)
	if lx.open {
		r.opaque = true
		return
	}
	for _, c := range simpleCommands(lx.tokens) {
		for _, s := range c.subs {
			r.line(s, depth+1)
		}
		if !c.ownStdin && len(c.words) > 0 {
			r.command(c.words, c.words, depth)
		}
	}
}

// command classifies the simple command whose words are all, of which ws
// are what is left after the wrappers read so far.
func (r *inputReader) command(all, ws []word, depth int) {
	if len(ws) == 0 {
		return
	}
	if ws[0].dynamic {
		r.opaque = true
		return
	}
	name, args := progName(ws[0].value), ws[1:]
	if sp, ok := runner(name); ok {
		r.run(all, sp, args, depth)
		return
	}
	if isShellProgram(name) {
		r.shellArgs(args, depth)
		return
	}
	if sp, ok := codeReader(name); ok && readsCode(name, sp, args) {
		r.code = appendNew(r.code, joinRaw(all))
	}
}

// run classifies a program that runs another: the command its
// arguments name, or a shell when they name none and it starts one.
func (r *inputReader) run(all []word, sp runSpec, args []word, depth int) {
	if sp.special != nil {
		sp.special(r, all, args, depth)
		return
	}
	rest, ok := skipOptions(args, sp.opts)
	if !ok {
		return // an option that runs nothing (sudo -l, at -l)
	}
	if len(rest) < sp.operands {
		rest = nil
	} else {
		rest = dropAssignments(rest[sp.operands:])
	}
	switch {
	case len(rest) > 0:
		r.command(all, rest, depth)
	case sp.shellWithout, sp.shellFlags != "" && hasFlag(args, sp.opts, sp.shellFlags):
		r.shell = true
	}
}

// shellArgs classifies a shell from its arguments: the -c string is a
// command line of its own; without one the shell reads commands from
// stdin, unless it runs a script file.
func (r *inputReader) shellArgs(args []word, depth int) {
	c, stdin := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic {
			r.opaque = true
			return
		}
		v := a.value
		switch {
		case v == "--" || v == "-":
			if c && i+1 < len(args) {
				r.commandString(args[i+1], depth)
				return
			}
			r.shell = true
			return
		case strings.HasPrefix(v, "--"):
			name, value, has := strings.Cut(v[2:], "=")
			switch name {
			case "command":
				if has {
					r.commandString(word{raw: value, value: value}, depth)
					return
				}
				c = true
			case "rcfile", "init-file":
				if !has {
					i++
				}
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			c = c || v[0] == '-' && strings.ContainsAny(v[1:], "cC")
			stdin = stdin || v[0] == '-' && strings.IndexByte(v[1:], 's') >= 0
			if strings.ContainsAny(v[1:], "oO") {
				i++
			}
		case c:
			r.commandString(a, depth)
			return
		case stdin || v == "/dev/stdin" || v == "/dev/fd/0":
			r.shell = true
			return
		default:
			return // a script file: its reads of stdin are data
		}
	}
	if c {
		return // -c without its string runs nothing
	}
	r.shell = true
}

// commandString reads a string a shell runs as a command line.
func (r *inputReader) commandString(w word, depth int) {
	if w.dynamic {
		r.opaque = true
		return
	}
	r.line(w.value, depth+1)
}

func joinRaw(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.raw
	}
	return strings.Join(parts, " ")
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
