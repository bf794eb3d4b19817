package shell

import (
	"slices"
	"strings"
)

// Without running anything, a command can still name a path or a program
// in pieces: through a variable set earlier (d=/etc; rm -rf $d), a for
// loop (for d in / /etc; do rm -rf $d; done), the positional parameters
// (set -- rm -rf /; "$@"), printf -v, read from a here-string, an
// indirect ${!name}, or brace expansion (rm -rf {/,}). The environment
// records what the command gives its variables, so that the analysis
// reads every value a word may take.

// maxVariants bounds how many spellings one word is expanded into.
const maxVariants = 32

// env is what the commands of one input set that later commands read:
// variables (by lower-cased name, with every raw value they are given),
// the files they write and the programs they copy, and the Options the
// input runs under.
type env struct {
	vars  map[string][]string
	scope *scope
	files files
	// overflow is set when a payload decoded to more text than the
	// analysis reads; the command is then too complex to inspect.
	overflow bool
	// prep prepares text for the lexer: clean, or cleanShell for the
	// reading of the command as the shell runs it (shellReading).
	prep         func(string) string
	shellReading bool
	// version counts the values set, so that calls expanded before a
	// later script set a variable (eval X=rm; $X -rf /) are expanded again.
	version int

	// seeded holds the (lower-cased) names of the variables Options.State
	// gave a value: they are read as unknown as well (see State).
	seeded map[string]bool
	// inherited are the command variables of Options.State, which count
	// for every program the input runs.
	inherited []nameValue
	// functions are the functions of Options.State, by name.
	functions map[string]string
	// codeValues are the values variables are given that hold a command
	// substitution, which runs wherever bash evaluates the value again:
	// in arithmetic ($((X)) with X='a[$(cmd)]'), in PS4 under set -x.
	codeValues []string
}

// newEnv returns the environment of one input run as o says.
func newEnv(o Options) *env {
	e := &env{scope: newScope(o)}
	e.seed(o.State)
	return e
}

// collect records the assignments of a script's commands: NAME=value
// prefixes, export/declare/local/readonly/typeset NAME=value, the words
// of for NAME in WORDS, set -- ARGS, printf -v NAME, and read NAME from
// a here-string or a pipe of known text.
func (e *env) collect(sc *script) {
	for i, cmd := range sc.cmds {
		ws := cmd.words
		if len(ws) >= 3 && !ws[0].quoted && (ws[0].text == "for" || ws[0].text == "select") && ws[2].text == "in" {
			for _, v := range ws[3:] {
				e.set(ws[1].text, v.raw)
			}
			continue
		}
		if len(ws) > 0 && !ws[0].quoted {
			switch ws[0].text {
			case "set":
				e.setPositional(ws[1:])
			case "printf":
				e.printfV(ws[1:])
			case "read":
				e.read(sc, i, ws[1:])
			}
		}
		declaration := len(ws) > 0 && !ws[0].quoted && isDeclaration(ws[0].text)
	words:
		for i, w := range ws {
			switch {
			case isAssignment(w.raw):
				name, value, _ := strings.Cut(w.raw, "=")
				e.set(strings.ToLower(strings.TrimSuffix(name, "+")), value)
			case declaration && (i == 0 || strings.HasPrefix(w.raw, "-")):
			case declaration && !strings.Contains(w.raw, "="):
			default:
				break words // the command itself: its arguments assign nothing
			}
		}
	}
}

func isDeclaration(s string) bool {
	switch s {
	case "export", "declare", "local", "readonly", "typeset":
		return true
	}
	return false
}

// set records one more value of the variable name (lower case).
func (e *env) set(name, value string) {
	if e.vars == nil {
		e.vars = make(map[string][]string)
	}
	if len(e.vars[name]) < maxVariants && !slices.Contains(e.vars[name], value) {
		e.vars[name] = append(e.vars[name], value)
		e.version++
		if (strings.Contains(value, "$(") || strings.Contains(value, "`")) && len(e.codeValues) < maxVariants {
			e.codeValues = append(e.codeValues, value)
		}
	}
}

// setPositional records set -- ARGS (or set ARGS): $1, $2 … and "$@".
func (e *env) setPositional(args []word) {
	if len(args) > 0 && args[0].raw == "--" {
		args = args[1:]
	} else if len(args) == 0 || strings.HasPrefix(args[0].raw, "-") || strings.HasPrefix(args[0].raw, "+") {
		return // set -e, set +x: options, not parameters
	}
	for i, a := range args[:min(len(args), 9)] {
		e.set(string(rune('1'+i)), a.raw)
	}
	// "$@" keeps each parameter a word of its own; reading it split at
	// blanks as well only ever sees more of the command.
	e.set("@", joinRaw(args))
	e.set("*", joinRaw(args))
}

// printfV records printf -v NAME FORMAT ARGS.
func (e *env) printfV(args []word) {
	if len(args) < 3 || args[0].raw != "-v" {
		return
	}
	rest := make([]string, len(args)-3)
	for i, a := range args[3:] {
		rest[i] = a.raw
	}
	e.set(strings.ToLower(args[1].raw), formatPrintf(args[2].raw, rest))
}

// read records read NAME… fed by a here-string, a here-document or a pipe
// of known text: each name takes a field, the last one the rest of the
// first line.
func (e *env) read(sc *script, i int, args []word) {
	var names []string
	o := getopt(args, "adeinNptu", "")
	if arr, ok := o.value("a"); ok {
		names = append(names, arr)
	}
	for _, w := range o.operands {
		names = append(names, w.raw)
	}
	input, ok := e.stdinOf(sc, i)
	if !ok || len(names) == 0 {
		return
	}
	line, _, _ := strings.Cut(input, "\n")
	if _, ok := o.value("a"); ok {
		e.set(strings.ToLower(names[0]), line)
		return
	}
	fields := strings.Fields(line)
	for k, name := range names {
		switch {
		case k == len(names)-1 && k < len(fields):
			e.set(strings.ToLower(name), strings.Join(fields[k:], " "))
		case k < len(fields):
			e.set(strings.ToLower(name), fields[k])
		}
	}
}

// expand returns the spellings text (a word's text) may take: with each
// known variable replaced by each of its values, and brace lists
// expanded.
func (e *env) expand(text string) []string {
	out := []string{text}
	if e != nil && strings.Contains(text, "$") {
		out = e.substitute(text, lower)
	}
	if strings.Contains(text, "{") {
		var braced []string
		for _, s := range out {
			braced = append(braced, expandBraces(s, maxVariants)...)
		}
		out = braced
	}
	return out
}

// values returns the raw values the reference may expand to, and whether
// any is known.
func (e *env) values(r paramRef) ([]string, bool) {
	base := e.vars[r.name]
	if r.name == "home" && len(base) == 0 && e.scope != nil {
		base = e.scope.homeValues()
	}
	if r.indirect {
		var out []string
		for _, v := range base {
			out = append(out, e.vars[strings.ToLower(v)]...)
		}
		base = out
	}
	if len(base) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(base))
	for _, v := range base {
		out = append(out, r.apply(v))
	}
	return out, true
}

// homeValues are the values $HOME may have, for expansions that take it
// apart (${HOME%/*}): the user's home when known, and otherwise the two
// shapes a home takes, under /home and /root.
func (s *scope) homeValues() []string {
	if s.home != "" {
		return []string{s.home}
	}
	return []string{"/home/user", "/root"}
}

// substitute replaces references to known variables in s, which is word
// text or raw text, with each of their values passed through conv (lower
// for text, an escape for raw text that will be parsed again).
func (e *env) substitute(s string, conv func(string) string) []string {
	out := []string{s}
	if e == nil {
		return out
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		r, ok := parseRef(s[i:])
		if !ok {
			continue
		}
		values, known := e.values(r)
		if !known {
			i += r.n - 1
			continue
		}
		ref := s[i : i+r.n]
		var next []string
		for _, o := range out {
			for _, v := range values {
				if len(next) < maxVariants {
					next = append(next, strings.Replace(o, ref, conv(v), 1))
				}
			}
			if e.seeded[r.name] && len(next) < maxVariants {
				next = append(next, o) // the command may have changed it unseen
			}
		}
		out = next
		i += r.n - 1
	}
	return out
}

// resolve returns a command word with known variables replaced and
// unknown ones dropped, so that r${x}m reads rm when x is unset.
func (e *env) resolve(text string) string {
	if !strings.Contains(text, "$") {
		return text
	}
	s := e.substitute(text, lower)[0]
	if d := dropUnknown(s, false); d != "" {
		return d
	}
	return text
}

// dropUnknown returns s without its remaining parameter references, as
// the shell expands an unset variable to nothing. With keepSet, the
// variables a shell always has (PWD, USER, PATH …) are kept, since they
// are never empty.
func dropUnknown(s string, keepSet bool) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			if r, ok := parseRef(s[i:]); ok {
				if keepSet && (alwaysSet(r.name) || strings.HasPrefix(r.op, ":?") || strings.HasPrefix(r.op, "?")) {
					b.WriteString(s[i : i+r.n])
				}
				i += r.n - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// alwaysSet reports whether a shell always gives the variable a value.
func alwaysSet(name string) bool {
	switch name {
	case "pwd", "user", "logname", "shell", "path", "hostname", "uid", "euid", "ppid", "random", "bashpid", "seconds",
		"lineno", "$", "?", "#", "-", "0", "ifs", "home":
		return true
	}
	return false
}

// expandBraces expands the first brace list in s ({a,b}, recursively the
// rest), up to limit results. Text without a list comes back unchanged.
func expandBraces(s string, limit int) []string {
	open := -1
	depth, comma := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 {
				open, comma = i, false
			}
			depth++
		case ',':
			comma = comma || depth == 1
		case '}':
			if depth == 0 {
				continue
			}
			if depth--; depth == 0 && comma {
				var out []string
				for _, alt := range splitTop(s[open+1 : i]) {
					for _, rest := range expandBraces(s[:open]+alt+s[i+1:], limit-len(out)) {
						if len(out) < limit {
							out = append(out, rest)
						}
					}
				}
				return out
			}
		}
	}
	return []string{s}
}

// splitTop splits a brace list's body at its top-level commas.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
