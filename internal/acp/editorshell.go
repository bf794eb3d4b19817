package acp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// editorScript is the bash script each command runs in, in a terminal of
// the editor. Its arguments are the session's state directory, the
// directory to start in, the command as the model wrote it, and the
// variables to hide. The command is an argument evaluated with eval, so
// no quoting of its text is needed or done. Before it runs, the exported
// variables the last command left (export -p) replace the terminal's,
// and it starts in its directory with stdin from /dev/null; after it, the
// exported variables go to env.new and then the directory to cwd.new,
// which hermes takes only when both were written. A command that leaves
// the shell early (exit, exec, set -e) or is killed saves nothing.
const editorScript = `exec </dev/null
__hermes_s=$1 __hermes_d=$2 __hermes_c=$3
shift 3
if [ -f "$__hermes_s/env" ]; then
  for __hermes_n in $(compgen -e); do unset -v "$__hermes_n"; done 2>/dev/null
  . "$__hermes_s/env" 2>/dev/null
fi
unset -v __hermes_n "$@" 2>/dev/null
set --
cd -- "$__hermes_d" || exit 1
eval -- "$__hermes_c"
__hermes_ec=$?
(umask 077 && export -p >"$__hermes_s/env.new" && pwd -P >"$__hermes_s/cwd.new") 2>/dev/null
exit "$__hermes_ec"
`

// probeScript records in base, in the state directory its argument
// names, the exported variables the editor's terminals start with: the
// approver's state is told apart from them, and the secrets among them
// are hidden from every command.
const probeScript = `umask 077 && export -p >"$1/base"`

// carryNote tells the model, with the session's first command in the
// editor's terminal, what carries over there, which differs from
// hermes's own shell.
const carryNote = "this session's commands run in the editor's terminal, each in a new bash: the working directory " +
	"and exported variables (export X=1, an activated virtualenv's PATH) carry over to the next command; plain " +
	"variables, functions, aliases, shell options and jobs do not: export what later commands need, or chain them in one command"

// editorShell keeps one session's state between the commands it runs in
// the editor's terminals: a private directory (0700) holding the
// exported variables and the directory the last command left.
type editorShell struct {
	conn *acpsdk.AgentSideConnection
	sid  acpsdk.SessionId

	mu sync.Mutex
	// dir is the state directory; "" until the first command.
	dir string
	// told is set once the model was told what carries over.
	told bool
	// closed is set when the session was closed; no command runs then.
	closed bool
}

// remove deletes the state directory, after the command running, if
// any, ended; no command runs after it.
func (e *editorShell) remove() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
		e.dir = ""
	}
}

// State is what the commands so far exported, for the approver.
func (e *editorShell) State() shell.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dir == "" {
		return shell.State{}
	}
	base, _ := os.ReadFile(filepath.Join(e.dir, "base"))
	now, err := os.ReadFile(filepath.Join(e.dir, "env"))
	if err != nil {
		return shell.State{}
	}
	return terminal.ExportedState(string(base), string(now))
}

// commit takes the state the command saved, when it saved all of it, and
// returns the directory it ended in; "" when it saved nothing.
func (e *editorShell) commit() string {
	cwd, err := os.ReadFile(filepath.Join(e.dir, "cwd.new"))
	dir := strings.TrimSuffix(string(cwd), "\n")
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	if err := os.Rename(filepath.Join(e.dir, "env.new"), filepath.Join(e.dir, "env")); err != nil {
		return ""
	}
	return dir
}

// hidden are the variables the command must not see, among those
// hermes's environment holds (the editor started hermes, so its
// terminals likely hold them too), those the editor's terminals start
// with and those the session's commands exported. e.mu is held.
func (e *editorShell) hidden(hide func(string) bool) []string {
	if hide == nil {
		return nil
	}
	var names []string
	seen := make(map[string]bool)
	add := func(name string) {
		if name != "" && !seen[name] && hide(name) {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		add(name)
	}
	for _, f := range []string{"base", "env"} {
		data, _ := os.ReadFile(filepath.Join(e.dir, f))
		for name := range terminal.ExportedState("", string(data)).Vars {
			add(name)
		}
	}
	return names
}

// exitCode is the command's status as a local run reports it: 128+N when
// signal N ended it.
func exitCode(r acpsdk.WaitForTerminalExitResponse) int {
	if r.ExitCode != nil {
		return *r.ExitCode
	}
	if r.Signal != nil {
		return 128 + signalNumber(*r.Signal)
	}
	return -1
}

// signalNumber is the number of a signal the editor names ("SIGKILL",
// "KILL" or "9"); 0 when it is unknown.
func signalNumber(name string) int {
	if n, err := strconv.Atoi(name); err == nil {
		return n
	}
	switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
	case "HUP":
		return int(syscall.SIGHUP)
	case "INT":
		return int(syscall.SIGINT)
	case "QUIT":
		return int(syscall.SIGQUIT)
	case "ABRT":
		return int(syscall.SIGABRT)
	case "KILL":
		return int(syscall.SIGKILL)
	case "SEGV":
		return int(syscall.SIGSEGV)
	case "PIPE":
		return int(syscall.SIGPIPE)
	case "ALRM":
		return int(syscall.SIGALRM)
	case "TERM":
		return int(syscall.SIGTERM)
	}
	return 0
}
