package shell

import "strings"

// Classify returns the verdict for one shell command: the first hardline
// rule it matches, else the first dangerous rule, else safe. Every part of
// a compound command is inspected — each side of ; && || | and newlines,
// command substitutions, process substitutions, here-documents fed to a
// shell, and the command strings of sh -c, eval, su -c, ssh and the like —
// and the worst part decides.
func Classify(cmd string) Verdict {
	if fs := findings(cmd); len(fs) > 0 {
		return fs[0]
	}
	return Verdict{Level: Safe}
}

// Limits on what detection reads. A command past them is refused as
// hardline rather than inspected in part: otherwise padding a command, or
// nesting it, would hide a hardline command behind a verdict that --yolo
// lets through. The model can always split the work into smaller commands.
const (
	// maxCommandBytes bounds the command's length.
	maxCommandBytes = 128 << 10
	// maxScripts bounds the substitutions, payloads and nested commands
	// inspected for one command.
	maxScripts = 10000
)

// tooLong is the verdict for a command longer than maxCommandBytes.
func tooLong() Verdict {
	return Verdict{Level: Hardline, Rule: "too_long", Description: "command too long to inspect; split it into smaller commands"}
}

// tooComplex is the verdict for a command nested past the limits.
func tooComplex() Verdict {
	return Verdict{Level: Hardline, Rule: "too_complex", Description: "command nested too deeply to inspect; split it into simpler commands"}
}

// findings returns every rule the command matches, hardline rules first,
// each rule once, in the rule table's order.
func findings(cmd string) []Verdict {
	if len(cmd) > maxCommandBytes {
		return []Verdict{tooLong()}
	}
	a, ok := analyze(cmd)
	if !ok {
		return []Verdict{tooComplex()}
	}
	return a.match(rules())
}

// Report is what detection learns about a command, for the approval
// policy: every finding, and the parts its deny patterns are matched
// against.
type Report struct {
	// Findings are every rule the command matches, hardline rules first,
	// each rule once, in the rule table's order.
	Findings []Verdict
	// Parts are the texts approvals.deny patterns are matched against:
	// the normalized command and each simple command in it, with and
	// without its wrappers.
	Parts []string
}

// Inspect classifies cmd and collects its parts.
func Inspect(cmd string) Report {
	if len(cmd) > maxCommandBytes {
		return Report{Findings: []Verdict{tooLong()}, Parts: []string{Normalize(cmd)}}
	}
	a, ok := analyze(cmd)
	if !ok {
		return Report{Findings: []Verdict{tooComplex()}, Parts: []string{Normalize(cmd)}}
	}
	r := Report{Findings: a.match(rules()), Parts: []string{Normalize(cmd)}}
	for _, c := range a.calls {
		r.Parts = append(r.Parts, strings.Join(texts(c.cmd.words), " "), c.line)
	}
	return r
}

// scriptView is one script with a call for each of its commands.
type scriptView struct {
	sc    *script
	calls []*call

	pipes     pipeSource // cached by pipeSources
	pipesDone bool
}

// analysis is a command taken apart: every script it contains (the
// command itself, substitutions, payloads) and every call in them.
type analysis struct {
	scripts []*scriptView
	calls   []*call
	// texts are the call lines and here-document bodies that text rules
	// (metadata addresses) read; sqlTexts the subset that reaches a
	// database (see sqlTexts).
	texts, sqlTexts []string
}

// analyze lexes cmd and everything nested in it. It reports false when the
// nesting or the number of nested scripts exceeds the limits.
func analyze(cmd string) (*analysis, bool) {
	top, ok := parseScript(clean(cmd), 0)
	if !ok {
		return nil, false
	}
	a := &analysis{}
	e := &env{}
	queue := []*script{top}
	for len(queue) > 0 {
		if len(a.scripts) >= maxScripts {
			return nil, false
		}
		sc := queue[0]
		queue = queue[1:]
		sv := &scriptView{sc: sc}
		e.collect(sc)
		for i, cmd := range sc.cmds {
			c := newCall(sc, i, cmd, e)
			sv.calls = append(sv.calls, c)
			a.calls = append(a.calls, c)
			a.texts = append(a.texts, c.line)
			if cmd.stdin != nil {
				a.texts = append(a.texts, cmd.stdin.text)
			}
			queue = append(queue, nestedScripts(cmd)...)
			nested, ok := payloads(c)
			if !ok {
				return nil, false
			}
			queue = append(queue, nested...)
		}
		trackDirs(sv)
		a.sqlTexts = append(a.sqlTexts, sqlTexts(sv)...)
		echoed, ok := echoedScripts(sv)
		if !ok {
			return nil, false
		}
		queue = append(queue, echoed...)
		a.scripts = append(a.scripts, sv)
	}
	return a, true
}

// echoedScripts returns the text echo or printf pipe straight into a
// shell (echo reboot | sh), parsed as the commands it is.
func echoedScripts(sv *scriptView) ([]*script, bool) {
	var out []*script
	for i := 1; i < len(sv.calls); i++ {
		prev, c := sv.calls[i-1], sv.calls[i]
		if (prev.cmd.sep != "|" && prev.cmd.sep != "|&") || !isShell(c.name) || !readsCode(c) {
			continue
		}
		args := prev.args
		switch prev.name {
		case "echo":
			for len(args) > 0 && isEchoFlag(args[0].raw) {
				args = args[1:]
			}
		case "printf":
		default:
			continue
		}
		if sv.sc.depth+1 > maxDepth {
			return nil, false
		}
		sc, ok := parseScript(clean(joinRaw(args)), sv.sc.depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, sc)
	}
	return out, true
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

// payloads returns the commands a call hands on as text or as arguments:
// sh -c and friends, a shell's here-document, eval, ssh's remote command,
// watch, env -S, alias and trap bodies, and find -exec. It reports false when they nest too
// deeply.
func payloads(c *call) ([]*script, bool) {
	depth := c.sc.depth + 1
	var srcs []string
	if s, ok := commandString(c); ok && s != "" {
		srcs = append(srcs, s)
	}
	switch {
	case isShell(c.name) && c.cmd.stdin != nil && shellHeredoc(c):
		srcs = append(srcs, c.cmd.stdin.raw)
	case c.name == "eval":
		srcs = append(srcs, joinRaw(c.args))
	case c.name == "ssh":
		if o := getopt(c.args, "BbcDEeFIiJLlmOoPpQRSWw", ""); len(o.operands) > 1 {
			srcs = append(srcs, joinRaw(o.operands[1:]))
		}
	case c.name == "watch":
		srcs = append(srcs, joinRaw(getopt(c.args, "nq", "interval").operands))
	case c.name == "alias":
		for _, a := range c.args {
			if _, value, ok := strings.Cut(a.raw, "="); ok {
				srcs = append(srcs, value)
			}
		}
	case c.name == "trap":
		if len(c.args) > 0 && !strings.HasPrefix(c.args[0].raw, "-") {
			srcs = append(srcs, c.args[0].raw)
		}
	}
	for _, w := range c.wraps {
		if w.name == "env" && anyWord(w.opts, func(s string) bool { return s == "-s" || strings.HasPrefix(s, "--split-string") }) {
			srcs = append(srcs, joinRaw(append([]word{c.exe}, c.args...)))
		}
	}
	var out []*script
	for _, src := range srcs {
		if depth > maxDepth {
			return nil, false
		}
		sc, ok := parseScript(clean(src), depth)
		if !ok {
			return nil, false
		}
		out = append(out, sc)
	}
	if c.name == "find" {
		out = append(out, findExec(c, depth)...)
	}
	return out, true
}

// findExec returns the commands find runs for each file (-exec, -execdir,
// -ok, -okdir … ; or +), as scripts of one command each.
func findExec(c *call, depth int) []*script {
	var out []*script
	for i := 0; i < len(c.args); i++ {
		switch c.args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(c.args) && c.args[j].raw != ";" && c.args[j].raw != "+" {
			j++
		}
		if j > i+1 {
			out = append(out, &script{cmds: []*command{{words: c.args[i+1 : j]}}, depth: depth})
		}
		i = j
	}
	return out
}
