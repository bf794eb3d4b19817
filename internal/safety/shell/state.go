package shell

import (
	"path"
	"slices"
	"strings"
)

// State is what the shell a command runs in already holds when the command
// starts. A persistent shell keeps the variables and functions of a
// session's earlier commands, so "D=~" in one call and "rm -rf $D" in the
// next delete the home directory, and "f() { rm -rf ./*; }" defined in one
// directory deletes another's files when a later call runs f there; only
// the shell's state shows either.
//
// The analysis reads State so that it only ever adds readings: a
// variable's value is read besides the reading of the variable as unknown,
// never instead of it, since the command may change it in ways the
// analysis does not follow (read, source, mapfile); a call whose name is a
// known function is read as the function's body, run where the call runs,
// besides the program of that name; a command variable (GIT_PAGER,
// LD_PRELOAD, …) an earlier command set counts for every program the
// command runs, as if each call set it. State never makes a command
// milder than it is without it.
type State struct {
	// Vars are the variables earlier commands set or changed, by name;
	// an array's value is its elements separated by spaces.
	Vars map[string]string
	// Functions are the functions the shell defines, by name, each as
	// its whole definition (what `declare -f NAME` prints).
	Functions map[string]string
}

// nameValue is one variable of State.
type nameValue struct{ name, value string }

// seed gives e the variables and functions of st. Names are taken in
// sorted order so that the analysis does not depend on map order.
func (e *env) seed(st State) {
	names := make([]string, 0, len(st.Vars))
	for name := range st.Vars {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		value := st.Vars[name]
		low := strings.ToLower(name)
		e.set(low, value)
		if e.seeded == nil {
			e.seeded = make(map[string]bool)
		}
		e.seeded[low] = true
		if _, runs := commandVariable(strings.ToUpper(name)); runs {
			e.inherited = append(e.inherited, nameValue{name, value})
		}
	}
	e.functions = st.Functions
}

// function returns the definition of the function a call of name runs,
// when State knows one.
func (e *env) function(name string) (string, bool) {
	if e == nil || name == "" || e.functions == nil {
		return "", false
	}
	def, ok := e.functions[name]
	return def, ok
}

// inheritedSources adds to a call's exec sources the command variables
// State holds, for a call that runs a program: a variable whose value is
// a command line is read as that command, and is a finding unless that
// command is a bare program name (EDITOR=nano); one that runs code
// without a command line (LD_PRELOAD, BASH_ENV) is a finding.
func (c *call) inheritedSources(add func(string), read func(string)) {
	if c.env == nil || c.name == "" || isBuiltin(c.name) {
		return
	}
	for _, v := range c.env.inherited {
		cmd, _ := commandVariable(strings.ToUpper(v.name))
		switch {
		case !cmd:
			add("")
		case plainProgram(v.value):
			read(v.value)
		default:
			add(v.value)
		}
	}
}

// plainProgram reports whether s is one word naming a program: letters,
// digits and . _ - / only.
func plainProgram(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r == '/' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}

// riskyPath reports whether a value PATH may have holds a directory whose
// programs nobody reviewed by name: an empty or relative entry (the
// current directory, wherever that is) or a world-writable temporary
// directory. A program run by name may then be one a command wrote there.
func (e *env) riskyPath() bool {
	if e == nil {
		return false
	}
	for _, value := range e.vars["path"] {
		for _, dir := range strings.Split(value, ":") {
			if riskyPathEntry(dir) {
				return true
			}
		}
	}
	return false
}

// riskyPathEntry reports whether dir, one entry of PATH, is risky (see
// riskyPath). References to variables ($PATH) stand for what they hold,
// which is judged where it was set.
func riskyPathEntry(dir string) bool {
	switch {
	case strings.Contains(dir, "$"):
		return false
	case dir == "" || !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "~"):
		return true
	}
	c := path.Clean(dir)
	for _, tmp := range [...]string{"/tmp", "/var/tmp", "/dev/shm"} {
		if under(c, tmp) {
			return true
		}
	}
	return false
}

// cdPathTargets returns where cd dir may go through CDPATH when the
// variable has a known value: dir joined to each of its entries, an empty
// entry meaning the current directory. A dir that starts with / or . is
// not looked up in CDPATH.
func (t *dirTracker) cdPathTargets(dir string) []string {
	if strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") || strings.HasPrefix(dir, ".") {
		return nil
	}
	var out []string
	for _, value := range t.e.vars["cdpath"] {
		for _, entry := range strings.Split(value, ":") {
			switch {
			case strings.Contains(entry, "$"):
			case entry == "":
				out = union(out, t.join(dir))
			case strings.HasPrefix(entry, "/") || strings.HasPrefix(entry, "~"):
				out = union(out, []string{joinPath(lower(entry), dir)})
			default:
				out = union(out, t.join(joinPath(lower(entry), dir)))
			}
		}
	}
	return out
}

// isBuiltin reports whether name is a bash builtin or keyword, which
// runs in the shell itself: PATH does not find it, and the environment
// does not reach it.
func isBuiltin(name string) bool {
	switch name {
	case ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
		"compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export",
		"false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout",
		"mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift",
		"shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask",
		"unalias", "unset", "wait", "[[", "]]", "{", "}", "!", "if", "then", "else", "elif", "fi", "case", "esac",
		"for", "while", "until", "do", "done", "in", "function", "select", "time", "coproc":
		return true
	}
	return false
}
