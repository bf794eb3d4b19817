package shell

import (
	"strings"
)

// A call can run more than it shows: its substitutions run whatever it
// is; a shell function it names runs the function's body (see State);
// sh -c, eval, ssh, watch, trap and alias take a command as text; a
// shell or interpreter runs what it reads on stdin; xargs, parallel and
// find -exec build command lines from their input; git, tar, vim and
// others run commands given in options; and a command assembled from
// variables runs whatever they hold. Each of these is derived as a script
// of its own and judged like the command itself.

// derive returns the scripts c runs besides itself.
func (a *analysis) derive(c *call) ([]*script, bool) {
	var out []*script
	for _, sc := range nestedScripts(c.cmd) {
		sc.dirs = c.dirs
		out = append(out, sc)
	}
	scs, ok := childrenOf(c, a.payloads(c))
	return append(out, scs...), ok
}

// nestedScripts returns the substitutions in a command's words,
// redirections and stdin, which run whatever the command is.
func nestedScripts(cmd *command) []*script {
	var out []*script
	for _, w := range cmd.words {
		out = append(out, w.subs...)
	}
	for _, r := range cmd.redirs {
		out = append(out, r.target.subs...)
	}
	if cmd.stdin != nil {
		out = append(out, cmd.stdin.subs...)
	}
	return out
}

// payloads returns the command lines c hands on, as text to parse.
func (a *analysis) payloads(c *call) []string {
	var srcs []string
	if sh := shellArgs(c); isShell(c.name) && sh.command != nil {
		srcs = append(srcs, a.env.joined([]word{*sh.command})...)
	} else if s, ok := commandString(c); ok && s != "" {
		srcs = append(srcs, s)
	}
	for _, name := range c.named {
		if def, ok := a.env.function(name); ok {
			// The body reads the call's arguments as $1, $2 … and "$@".
			a.env.setPositional(append([]word{{raw: "--", text: "--"}}, c.args...))
			srcs = append(srcs, def)
		}
	}
	if def, ok := a.env.function("command_not_found_handle"); ok && c.name != "" && !isBuiltin(c.name) {
		// bash runs it for a program it cannot find, which may be any.
		a.env.setPositional(append([]word{{raw: "--", text: "--"}, c.exe}, c.args...))
		srcs = append(srcs, def)
	}
	for _, v := range a.env.codeValues {
		srcs = append(srcs, "echo "+v)
	}
	switch c.name {
	case "eval":
		srcs = append(srcs, a.env.joined(c.args)...)
	case "ssh":
		if o := getopt(c.args, "BbcDEeFIiJLlmOoPpQRSWw", ""); len(o.operands) > 1 {
			srcs = append(srcs, joinRaw(o.operands[1:]))
		}
	case "watch":
		srcs = append(srcs, joinRaw(getopt(c.args, "nqd", "interval differences").operands))
	case "alias":
		for _, w := range c.args {
			if _, value, ok := strings.Cut(w.raw, "="); ok {
				srcs = append(srcs, value)
			}
		}
	case "trap":
		if len(c.args) > 0 && !strings.HasPrefix(c.args[0].raw, "-") {
			srcs = append(srcs, c.args[0].raw)
		}
	case "find":
		srcs = append(srcs, findExec(c)...)
	case "parallel", "sem":
		srcs = append(srcs, a.parallelLines(c)...)
	}
	for _, w := range c.wraps {
		if w.name == "env" && anyWord(w.opts, func(s string) bool { return s == "-s" || strings.HasPrefix(s, "--split-string") }) {
			srcs = append(srcs, joinRaw(append([]word{c.exe}, c.args...)))
		}
	}
	srcs = append(srcs, wrapperCommands(c)...)
	srcs = append(srcs, execOptions(c)...)
	if lang, code, ok := inlineSource(c); ok {
		srcs = append(srcs, codeCommands(lang, code)...)
	}
	srcs = append(srcs, a.stdinPayloads(c)...)
	srcs = append(srcs, a.processScripts(c)...)
	srcs = append(srcs, a.rebuilt(c)...)
	return srcs
}

// processScripts returns the scripts a shell, interpreter or source reads
// from a process substitution whose output is known: bash <(echo …),
// source <(printf …), bash < <(echo …).
func (a *analysis) processScripts(c *call) []string {
	if !isShell(c.name) && !isInterpreter(c.name) && c.name != "source" && c.name != "." {
		return nil
	}
	ws := c.args
	for _, r := range c.cmd.redirs {
		if r.op == "<" {
			ws = append(ws[:len(ws):len(ws)], r.target)
		}
	}
	var out []string
	for _, w := range ws {
		if !w.proc || len(w.subs) == 0 {
			continue
		}
		text, ok := a.env.scriptOutput(w.subs[0])
		switch {
		case !ok:
		case isInterpreter(c.name):
			out = append(out, codeCommands(c.name, text)...)
		default:
			out = append(out, text)
		}
	}
	return out
}

// joined returns the texts words join to once the shell has expanded
// them, for the commands that parse that text again (eval "$X",
// sh -c "$(…)"): unlike a plain command, their expansions may hold
// operators that take effect.
func (e *env) joined(ws []word) []string {
	lines := []string{""}
	for _, w := range ws {
		values := []string{w.raw}
		if w.expands {
			values, _ = e.wordValues(w)
		}
		lines = cross(lines, values)
	}
	return lines
}

// stdinPayloads returns what c runs from the text it reads on stdin, when
// that text is known: a shell's (or at's, su's) script, an interpreter's
// shell calls, xargs's command lines, crontab's jobs.
func (a *analysis) stdinPayloads(c *call) []string {
	consumes := readsCode(c) || c.hasWrapper("xargs") || c.name == "crontab" || c.name == "parallel"
	if !consumes {
		return nil
	}
	in, ok := a.env.stdinOf(c.sc, c.idx)
	if !ok {
		if c.hasWrapper("xargs") && c.idx > 0 {
			return xargsLines(c, findStarts(c.sc, c.idx-1))
		}
		return nil
	}
	switch {
	case c.hasWrapper("xargs"):
		return xargsLines(c, splitItems(c, in))
	case c.name == "crontab":
		if o := getopt(c.args, "u", "user"); len(o.operands) == 0 || o.operands[0].raw == "-" {
			return crontabCommands(in)
		}
		return nil
	case c.name == "parallel":
		return nil
	case isInterpreter(c.name):
		return codeCommands(c.name, in)
	}
	return []string{in}
}
