package shell

import "strings"

// Classify returns the verdict for one shell command: the first hardline
// rule it matches, else the first dangerous rule, else safe. Every part of
// a compound command is inspected — each side of ; && || | and newlines,
// command substitutions, process substitutions, here-documents fed to a
// shell, the command strings of sh -c, eval, su -c, ssh and the like, and
// the commands the input builds from variables, decodes from literal
// payloads or writes to a file and runs — and the worst part decides.
// Relative paths are judged only against the directories the command
// itself changes into; Options.Classify knows where the command starts.
func Classify(cmd string) Verdict { return Options{}.Classify(cmd) }

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
func (o Options) findings(cmd string) []Verdict { return o.report(cmd, false).Findings }

// Report is what detection learns about a command, for the approval
// policy: every finding, and the parts its deny patterns are matched
// against.
type Report struct {
	// Findings are every rule the command matches, hardline rules first,
	// each rule once, in the rule table's order.
	Findings []Verdict
	// Parts are the texts approvals.deny patterns are matched against:
	// the normalized command and each simple command in it, with and
	// without its wrappers — including the commands it decodes, builds
	// from variables or runs from files it writes.
	Parts []string
}

// Inspect classifies cmd and collects its parts.
func Inspect(cmd string) Report { return Options{}.Inspect(cmd) }

// Inspect classifies cmd run as o says, and collects its parts.
func (o Options) Inspect(cmd string) Report { return o.report(cmd, true) }

// report classifies cmd, with its parts when parts is set.
func (o Options) report(cmd string, parts bool) Report {
	if len(cmd) > maxCommandBytes {
		return Report{Findings: []Verdict{tooLong()}, Parts: []string{Normalize(cmd)}}
	}
	a, ok := analyze(cmd, newEnv(o), clean)
	if ok && unusual(cmd) && cleanShell(cmd) != clean(cmd) {
		// The command holds characters a person does not see (escape
		// sequences, zero-width spaces) or that NFKC changes: it is read
		// as displayed and again as the shell runs it, and the worse
		// reading counts.
		var b *analysis
		e := newEnv(o)
		e.shellReading = true
		if b, ok = analyze(cmd, e, cleanShell); ok {
			a.merge(b)
		}
	}
	if !ok {
		return Report{Findings: []Verdict{tooComplex()}, Parts: []string{Normalize(cmd)}}
	}
	r := Report{Findings: a.match(rules.Get())}
	if !parts {
		return r
	}
	r.Parts = []string{Normalize(cmd)}
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
// command itself, substitutions, payloads, decoded and rebuilt commands)
// and every call in them.
type analysis struct {
	env     *env
	scripts []*scriptView
	calls   []*call
	// texts are the call lines and here-document bodies that text rules
	// (metadata addresses) read; sqlTexts the subset that reaches a
	// database (see sqlTexts).
	texts, sqlTexts []sourced
	// ran records the written files already read as what they hold, by
	// call and path, so that each is read once.
	ran map[ranKey]bool
	// seen records the scripts taken in, by text and directories: a text
	// derived again (eval "$X" where X holds a command that evals $X)
	// adds nothing, and reading it once keeps the analysis linear.
	seen map[string]bool
}

// sourced is a text a rule reads with the command text it comes from,
// which a match reports.
type sourced struct{ text, src string }

type ranKey struct {
	c    *call
	path string
}

// analyze lexes cmd, prepared by prep (clean or cleanShell), and
// everything nested in or derived from it. It reports false when the
// nesting or the number of nested scripts exceeds the limits.
func analyze(cmd string, e *env, prep func(string) string) (*analysis, bool) {
	e.prep = func(s string) string { return strings.TrimRight(prep(s), "\n") }
	top, ok := parseScript(e.prep(cmd), 0)
	if !ok {
		return nil, false
	}
	if e.scope.dir != "" {
		top.dirs = []string{e.scope.dir}
	}
	a := &analysis{env: e}
	for queue := []*script{top}; len(queue) > 0; {
		for len(queue) > 0 {
			if len(a.scripts) >= maxScripts || e.overflow {
				return nil, false
			}
			sc := queue[0]
			queue = queue[1:]
			nested, ok := a.add(sc)
			if !ok {
				return nil, false
			}
			queue = append(queue, nested...)
		}
		if queue, ok = a.runWritten(); !ok {
			return nil, false
		}
		again, ok := a.reexpand()
		if !ok {
			return nil, false
		}
		queue = append(queue, again...)
	}
	return a, !e.overflow
}

// add takes one script into the analysis and returns the scripts derived
// from it.
func (a *analysis) add(sc *script) ([]*script, bool) {
	if len(a.scripts) > 0 { // the command itself is always new
		key := sc.src + "\x00" + strings.Join(sc.dirs, "\x00")
		if a.seen[key] {
			return nil, true
		}
		if a.seen == nil {
			a.seen = make(map[string]bool)
			a.seen[a.scripts[0].sc.src+"\x00"+strings.Join(a.scripts[0].sc.dirs, "\x00")] = true
		}
		a.seen[key] = true
	}
	e := a.env
	sv := &scriptView{sc: sc}
	e.collect(sc)
	dirs := newDirTracker(e, sc.dirs)
	var out []*script
	for i, cmd := range sc.cmds {
		c := newCall(sc, i, cmd, e)
		c.dirs = dirs.at(c)
		dirs.after(c)
		sv.calls = append(sv.calls, c)
		a.calls = append(a.calls, c)
		src := cmd.src
		if src == "" {
			src = c.line
		}
		a.texts = append(a.texts, sourced{c.line, src})
		if cmd.stdin != nil {
			a.texts = append(a.texts, sourced{cmd.stdin.text, src})
		}
		c.expandedAt = e.version
		derived, ok := a.derive(c)
		if !ok {
			return nil, false
		}
		out = append(out, derived...)
	}
	a.sqlTexts = append(a.sqlTexts, sqlTexts(sv)...)
	e.files.record(e, sv)
	a.scripts = append(a.scripts, sv)
	return out, true
}

// reexpand derives again the payloads of calls whose words hold
// expansions, when a script taken in after them set more variables: a
// variable set by eval or source is known only once their payload is
// read, after the calls that use it.
func (a *analysis) reexpand() ([]*script, bool) {
	var out []*script
	for _, c := range a.calls {
		if c.expandedAt == a.env.version || !anyExpands(c.cmd.words) {
			continue
		}
		c.expandedAt = a.env.version
		scs, ok := childrenOf(c, a.payloads(c))
		if !ok {
			return nil, false
		}
		out = append(out, scs...)
	}
	return out, true
}

// merge adds what b found to a: the same command read another way.
func (a *analysis) merge(b *analysis) {
	a.scripts = append(a.scripts, b.scripts...)
	a.calls = append(a.calls, b.calls...)
	a.texts = append(a.texts, b.texts...)
	a.sqlTexts = append(a.sqlTexts, b.sqlTexts...)
}

// childrenOf parses each of srcs as a script run by c (see children).
func childrenOf(c *call, srcs []string) ([]*script, bool) {
	var out []*script
	for _, src := range srcs {
		scs, ok := children(c, src)
		if !ok {
			return nil, false
		}
		out = append(out, scs...)
	}
	return out, true
}

// children parses src as a script run by c: one level deeper, in c's
// directories. Text with characters a person does not see (a decoded
// payload with escape sequences) is read both ways, as displayed and as
// the shell runs it, like the command itself. It reports false past
// maxDepth.
func children(c *call, src string) ([]*script, bool) {
	if c.sc.depth+1 > maxDepth {
		return nil, false
	}
	trimmed := func(prep func(string) string) func(string) string {
		return func(s string) string { return strings.TrimRight(prep(s), "\n") }
	}
	preps := []func(string) string{c.env.prep}
	if unusual(src) && clean(src) != cleanShell(src) {
		other := trimmed(clean)
		if !c.env.shellReading {
			other = trimmed(cleanShell)
		}
		preps = append(preps, other)
	}
	var out []*script
	for _, prep := range preps {
		sc, ok := parseScript(prep(src), c.sc.depth+1)
		if !ok {
			return nil, false
		}
		sc.dirs = c.dirs
		out = append(out, sc)
	}
	return out, true
}
