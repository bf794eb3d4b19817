package shell

import (
	"strings"
)

// Text a command builds without running anything unknown — echo, printf,
// a here-document, and what decoders make of them (base64 -d, xxd -r,
// rev, tr, gzip -d …) — is known before it runs. When that text is then
// run (piped to a shell, read by eval or sh -c "$(…)", used as a command
// name, written to a file that is run, fed to xargs), the analysis reads
// it as the command it is: echo cm0gLXJmIC8= | base64 -d | sh is rm -rf /.
// Text that depends on anything else (a file, the network, the clock) is
// unknown, and its consumers are judged as dangerous instead.

// maxOutputBytes bounds the text one evaluation may produce; a payload
// that decompresses past it makes the command too complex to inspect.
const maxOutputBytes = maxCommandBytes

// staticOutput returns what a command substitution prints, trailing
// newlines removed as the shell does, when its body is made only of known
// text ($(echo rm), $(printf %s rm), $(echo cm0= | base64 -d)); anything
// else returns source, the substitution as written: hermes does not run
// commands to learn what they print.
func staticOutput(sc *script, source string) string {
	var e *env
	if out, ok := e.scriptOutput(sc); ok {
		return strings.TrimRight(out, "\n")
	}
	return source
}

// scriptOutput returns what a whole script writes to stdout, when known.
func (e *env) scriptOutput(sc *script) (string, bool) {
	if len(sc.cmds) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, cmd := range sc.cmds {
		if cmd.sep == "|" || cmd.sep == "|&" {
			continue
		}
		if cmd.sep == "(" || cmd.sep == ")" && i+1 < len(sc.cmds) {
			return "", false
		}
		out, ok := e.outputOf(sc, i)
		if !ok || b.Len()+len(out) > maxOutputBytes {
			return "", false
		}
		b.WriteString(out)
	}
	return b.String(), true
}

// stdinOf returns the text sc.cmds[i] reads on stdin, when known: its
// here-document or here-string, or what the pipeline before it writes.
func (e *env) stdinOf(sc *script, i int) (string, bool) {
	cmd := sc.cmds[i]
	if cmd.stdin != nil {
		text := e.first(*cmd.stdin)
		for _, r := range cmd.redirs {
			if r.op == "<<<" {
				text += "\n"
			}
		}
		return text, true
	}
	for _, r := range cmd.redirs {
		if r.op == "<" && e != nil {
			return e.files.content(e, r.target.text)
		}
	}
	if i > 0 && (sc.cmds[i-1].sep == "|" || sc.cmds[i-1].sep == "|&") {
		return e.outputOf(sc, i-1)
	}
	return "", false
}

// outputOf returns what sc.cmds[i] writes to a pipe, when known.
func (e *env) outputOf(sc *script, i int) (string, bool) {
	for _, r := range sc.cmds[i].redirs {
		if r.op == ">" || r.op == ">>" || r.op == "&>" || r.op == ">|" {
			return "", false // its output goes to a file; see files
		}
	}
	return e.produced(sc, i)
}

// produced returns what sc.cmds[i] prints, wherever that goes, when
// known.
func (e *env) produced(sc *script, i int) (string, bool) {
	words := sc.cmds[i].words
	for len(words) > 0 && isAssignment(words[0].raw) {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", false
	}
	args := make([]string, len(words)-1)
	for k, w := range words[1:] {
		args[k] = e.first(w)
	}
	name := programName(e.resolve(words[0].text))
	input := func() (string, bool) { return e.stdinOf(sc, i) }
	return e.produce(name, args, input)
}

// first returns a word's raw text with its known variables replaced by
// their first value.
func (e *env) first(w word) string {
	if e == nil || !w.expands || !strings.Contains(w.raw, "$") {
		return w.raw
	}
	return e.substitute(w.raw, func(s string) string { return s })[0]
}

// produce returns what program name with args writes, reading its stdin
// through input when it is a filter.
func (e *env) produce(name string, args []string, input func() (string, bool)) (string, bool) {
	switch name {
	case "echo":
		return echoOutput(args), true
	case "printf":
		if len(args) == 0 {
			return "", false
		}
		return formatPrintf(args[0], args[1:]), true
	case "which":
		return whichOutput(args)
	case "command", "type":
		for _, a := range args {
			if a == "-v" || a == "-p" || a == "-P" {
				return whichOutput(args)
			}
		}
		return "", false
	case "readlink", "realpath":
		ops := operands(args)
		if len(ops) != 1 {
			return "", false
		}
		return ops[0] + "\n", true
	case "cat", "tee", "head", "tail", "dos2unix", "unix2dos":
		if ops := operands(args); name == "cat" && len(ops) > 0 && !(len(ops) == 1 && ops[0] == "-") {
			if e == nil {
				return "", false
			}
			return e.files.concat(e, ops)
		}
		return input()
	}
	in, ok := input()
	if !ok {
		return "", false
	}
	return e.transform(name, args, in)
}

// echoOutput returns what echo prints.
func echoOutput(args []string) string {
	escapes, newline := false, true
	for len(args) > 0 && isEchoFlag(args[0]) {
		escapes = escapes || strings.Contains(args[0], "e")
		newline = newline && !strings.Contains(args[0], "n")
		args = args[1:]
	}
	var b strings.Builder
	s := strings.Join(args, " ")
	if escapes {
		writeEscaped(&b, s)
	} else {
		b.WriteString(s)
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

// whichOutput returns what which, command -v or type -P print for
// programs named plainly: a path whose last element is the name, which
// is all that matters to what runs.
func whichOutput(args []string) (string, bool) {
	var b strings.Builder
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case a == "" || strings.ContainsAny(a, "$`/ "):
			return "", false
		default:
			b.WriteString("/usr/bin/" + a + "\n")
		}
	}
	return b.String(), b.Len() > 0
}

// operands returns the arguments that are not options.
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}
