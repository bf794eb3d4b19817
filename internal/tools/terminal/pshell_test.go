//go:build unix

package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// shellPid returns the pid of the session's shell: the same one for as
// long as the shell lives.
func shellPid(t *testing.T, tr *Terminal, sid, dir string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(mustRun(t, tr, sid, dir, "echo $BASHPID").Output))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// shortShell names bash as bash in error messages, whatever path it was
// started by.
func shortShell(out string) string {
	lines := strings.SplitAfter(out, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "bash: "); j > 0 && strings.HasPrefix(l, "/") {
			lines[i] = l[j:]
		}
	}
	return strings.Join(lines, "")
}

// Variables, exports, functions and the directory carry over from one
// call to the next of a session, in one shell; other sessions have their
// own.
func TestShellKeepsState(t *testing.T) {
	tr := newTerminal(t, Options{})
	base, sub := newTree(t)
	pid := shellPid(t, tr, "a", base)
	mustRun(t, tr, "a", base, "X='two words'; export Y=exported; greet() { echo \"hi $1\"; }; cd sub")
	res := mustRun(t, tr, "a", base, `echo "$X|$Y|$(printenv Y)"; greet there; pwd`)
	if want := "two words|exported|exported\nhi there\n" + sub + "\n"; res.Output != want || res.Note != "" {
		t.Fatalf("output %q, note %q; want %q", res.Output, res.Note, want)
	}
	if got := shellPid(t, tr, "a", base); got != pid {
		t.Fatalf("the session's shell changed from %d to %d", pid, got)
	}
	if res := mustRun(t, tr, "b", base, `echo "${X-unset}"; pwd`); res.Output != "unset\n"+base+"\n" {
		t.Fatalf("session b saw session a's shell: %q", res.Output)
	}
	if shellPid(t, tr, "b", base) == pid {
		t.Fatal("sessions a and b share a shell")
	}
}

// The command reaches the shell exactly as written, whatever it holds,
// and a syntax error runs nothing and leaves the shell as it was.
func TestShellCommandTextExact(t *testing.T) {
	tr := newTerminal(t, Options{MaxOutputBytes: 2 * maxCommandBytes})
	dir := t.TempDir()
	mustRun(t, tr, "s", dir, "KEEP=kept")
	long := "echo " + strings.Repeat("x", maxCommandBytes-100)
	for _, tc := range []struct{ cmd, out string }{
		{`echo "it's" 'a "quote"' \$HOME $'\t|'`, "it's a \"quote\" $HOME \t|\n"},
		{"cat <<'EOF'\n}\n{\n'\"\nEOF", "}\n{\n'\"\n"},
		{"echo a }; echo '{'", "a }\n{\n"},
		{"printf '%s' \"a\rb\"", "a\rb"},
		{"printf 'no newline'", "no newline"},
		{"echo 你好 🙂 \x1b[31m", "你好 🙂 \x1b[31m\n"},
		{"echo trailing \\", "trailing\n"},
		{"echo one # comment", "one\n"},
		{"# only a comment", ""},
		{long, long[5:] + "\n"},
		{"f() {\n  echo in f\n}\nf", "in f\n"},
	} {
		res := mustRun(t, tr, "s", dir, tc.cmd)
		if res.Output != tc.out || res.ExitCode != 0 {
			t.Errorf("%.60q: output %.80q, exit %d; want %.80q", tc.cmd, res.Output, res.ExitCode, tc.out)
		}
	}
	for _, bad := range []string{"if then fi", "echo unbalanced )", "echo ran; (( ", "}", "{ echo x"} {
		res := mustRun(t, tr, "s", dir, bad)
		if res.ExitCode != 2 || strings.HasPrefix(res.Output, "ran") || !strings.Contains(res.Output, "syntax error") && !strings.Contains(res.Output, "unexpected EOF") {
			t.Errorf("%q: exit %d, output %q; want a syntax error that ran nothing", bad, res.ExitCode, res.Output)
		}
	}
	res := mustRun(t, tr, "s", dir, "echo $KEEP; no-such-command-here\nfalse\nnope")
	if out := shortShell(res.Output); out != "kept\nbash: line 1: no-such-command-here: command not found\nbash: line 3: nope: command not found\n" || res.Note != "" {
		t.Fatalf("after syntax errors: %q (note %q); want the shell as it was, line numbers as written", res.Output, res.Note)
	}
}

// A command reads nothing but /dev/null, never the requests the shell
// reads, and cannot reach the report: output that looks like one is just
// output, and the shell's report pipe is closed to it.
func TestShellCommandCannotForgeReport(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	for _, tc := range []struct{ cmd, out string }{
		{"cat; read -r x; echo \"read=$?\"", "read=1\n"},
		{`printf '\0N:x\0000\0001\0/\0\0\0\0\0E:x\0'; echo; exit 7`, "\x00N:x\x000\x001\x00/\x00\x00\x00\x00\x00E:x\x00\n"},
		{"echo forged >&4; echo $?; cat <&3; echo $?", "bash: 4: Bad file descriptor\n1\nbash: 3: Bad file descriptor\n1\n"},
		{"{ declare -p; declare -f; set; } | grep -cE '[0-9a-f]{32}'", "0\n"},
	} {
		res, err := invoke(context.Background(), tr, "s", dir, map[string]any{"command": tc.cmd})
		if err != nil {
			t.Fatal(err)
		}
		if strings.ReplaceAll(shortShell(res.Output), "bash: line 1: ", "bash: ") != tc.out {
			t.Errorf("%q: output %q, want %q", tc.cmd, res.Output, tc.out)
		}
	}
}

// Whatever ends or wedges the shell, the next command of the session
// starts a new one in the remembered directory and says so.
func TestShellRestartsAfterItEnds(t *testing.T) {
	tr := newTerminal(t, Options{})
	base, sub := newTree(t)
	for _, tc := range []struct {
		cmd  string
		code int
	}{
		{"exit 3", 3},
		{"exec true", 0},
		{"kill -9 $BASHPID", 137},
		{"kill $$", 143},
		{"echo $$ > /dev/null; kill -KILL $$", 137},
		{"set -e; false; echo not reached", 1},
		{"break 2", 0},
		{"continue 2", 0},
		// bash's saved copies of its descriptors, and with them the
		// report pipe, which it puts back after each command
		{`for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -ge 10 ]; then eval "exec $n>&-"; fi; done`, 70},
	} {
		mustRun(t, tr, "s", base, "cd "+sub+"; X=set")
		res := mustRun(t, tr, "s", base, tc.cmd)
		if res.ExitCode != tc.code || strings.Contains(res.Output, "not reached") || !strings.Contains(res.Note, "next command starts a new one") {
			t.Errorf("%q: exit %d, output %q, note %q; want exit %d and a note", tc.cmd, res.ExitCode, res.Output, res.Note, tc.code)
		}
		res = mustRun(t, tr, "s", base, `echo "${X-gone}"; pwd`)
		if res.Output != "gone\n"+sub+"\n" || !strings.Contains(res.Note, "restarted") || !strings.Contains(res.Note, "variables") {
			t.Errorf("after %q: output %q, note %q; want a new shell in %s that says it was restarted", tc.cmd, res.Output, res.Note, sub)
		}
	}
}

// A timeout or an interrupt kills the command with everything it started
// and the shell with it; the next command starts a new shell.
func TestShellTimeoutAndInterrupt(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	mustRun(t, tr, "s", dir, "X=set")
	shell := shellPid(t, tr, "s", dir)
	fifo := procgrouptest.NewFifo(t)
	done := make(chan error, 1)
	go func() {
		_, err := invoke(context.Background(), tr, "s", dir, map[string]any{
			"command": "echo started; sleep 300 & echo $! > " + fifo + "; wait", "timeout": 1})
		done <- err
	}()
	sleep := procgrouptest.ReadPid(t, fifo, 10*time.Second)
	te := wantCode(t, <-done, tool.CodeTimeout)
	if data := te.Data.(Result); data.Output != "started\n" || data.ExitCode != ExitTimeout {
		t.Errorf("timed-out data = %+v", data)
	}
	procgrouptest.WaitGone(t, []int{sleep, shell}, 10*time.Second)
	if res := mustRun(t, tr, "s", dir, `echo "${X-gone}"`); res.Output != "gone\n" || !strings.Contains(res.Note, "timed out") {
		t.Errorf("after the timeout: %q, note %q", res.Output, res.Note)
	}

	mustRun(t, tr, "s", dir, "X=set")
	shell = shellPid(t, tr, "s", dir)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := invoke(ctx, tr, "s", dir, map[string]any{"command": "sleep 300 & echo $! > " + fifo + "; wait"})
		done <- err
	}()
	sleep = procgrouptest.ReadPid(t, fifo, 10*time.Second)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted call: %v", err)
	}
	procgrouptest.WaitGone(t, []int{sleep, shell}, 10*time.Second)
	if res := mustRun(t, tr, "s", dir, `echo "${X-gone}"`); res.Output != "gone\n" || !strings.Contains(res.Note, "interrupted") {
		t.Errorf("after the interrupt: %q, note %q", res.Output, res.Note)
	}
}

// Only variables, functions and the directory carry over: what would run
// code in a later command out of sight of its approval, or change what
// its words mean, is undone after each command — aliases, traps, the
// hash table, positional parameters, shell options, a function named
// builtin — and a shell whose builtins changed is replaced.
func TestShellResetsWhatCannotBeJudged(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	for _, setup := range []string{
		"shopt -s expand_aliases; alias ls='touch $M'",
		"trap 'touch $M' DEBUG",
		"trap 'touch $M' RETURN",
		"trap 'touch $M' ERR",
		"hash -p /usr/bin/touch ls",
		"PROMPT_COMMAND='touch $M'",
		"builtin() { touch $M; }",
		"set -- touch $M",
	} {
		mustRun(t, tr, "s", dir, "unset M; "+setup) // M is only set when the next command runs
		res := mustRun(t, tr, "s", dir, "shopt -s expand_aliases\nM="+marker+"; f() { :; }; f; false; ls -d . >/dev/null; \"$@\"; echo $#")
		if _, err := os.Stat(marker); err == nil || res.Output != "0\n" || res.Note != "" {
			t.Errorf("after %q the next command ran its code: output %q, note %q, marker %v", setup, res.Output, res.Note, err)
			os.Remove(marker)
		}
	}
	// A signal trap would run when a later command's timeout stops the
	// shell.
	mustRun(t, tr, "s", dir, "unset M; trap 'touch $M' TERM HUP")
	_, err := invoke(context.Background(), tr, "s", dir, map[string]any{"command": "M=" + marker + "; sleep 30", "timeout": 1})
	wantCode(t, err, tool.CodeTimeout)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a TERM trap set by an earlier command ran when a later one timed out")
	}
	for _, setup := range []string{"set -euo pipefail", "shopt -s dotglob nullglob failglob", "set -o posix", "set -f"} {
		mustRun(t, tr, "s", dir, setup)
		res := mustRun(t, tr, "s", dir, "echo $SHELLOPTS; shopt -q dotglob; echo $?; false | true; echo $?; echo $UNSET_VAR/ok")
		if want := "braceexpand:hashall:interactive-comments\n1\n0\n/ok\n"; res.Output != want {
			t.Errorf("after %q options carried over: %q, want %q", setup, res.Output, want)
		}
	}
	res := mustRun(t, tr, "s", dir, "trap 'echo bye' EXIT; echo hi")
	if res.Output != "hi\nbye\n" {
		t.Errorf("a command's EXIT trap runs when it ends, as with bash -c: %q", res.Output)
	}
	mustRun(t, tr, "s", dir, "X=set")
	res = mustRun(t, tr, "s", dir, "enable -n echo")
	if !strings.Contains(res.Note, "builtins") {
		t.Errorf("enable -n: note %q", res.Note)
	}
	if res := mustRun(t, tr, "s", dir, `type -t echo; echo "${X-gone}"`); res.Output != "builtin\ngone\n" || !strings.Contains(res.Note, "restarted") {
		t.Errorf("after enable -n: %q, note %q", res.Output, res.Note)
	}
}

// stateApprover approves every command and records what it was told.
type stateApprover struct {
	approveAll
	seen []stateSeen
}

type stateSeen struct {
	dir, command string
	vars         map[string]string
	funcs        []string
}

func (s *stateApprover) ApproveShellCommand(_ context.Context, dir string, st shell.State, command string) error {
	var funcs []string
	for name := range st.Functions {
		funcs = append(funcs, name)
	}
	s.seen = append(s.seen, stateSeen{dir: dir, command: command, vars: st.Vars, funcs: funcs})
	return nil
}

// The approver is told what the shell holds that a fresh one would not:
// the variables earlier commands set or changed and the functions they
// defined, never bash's own moving parts or hermes's.
func TestShellStateReachesApprover(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := realDir(t, t.TempDir())
	ap := &stateApprover{}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: dir, Approver: ap})
	for _, cmd := range []string{
		"true",
		`X=/; export HOME_COPY=~; arr=(rm -rf "a b"); NL=$'a\nb'; declare -n REF=HOME_COPY; f() { rm -rf ./*; }; cd /tmp`,
		"echo $RANDOM",
	} {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		if _, err := tr.Call(ctx, raw); err != nil {
			t.Fatal(err)
		}
	}
	if first := ap.seen[0]; len(first.vars) != 0 || len(first.funcs) != 0 || first.dir != dir {
		t.Errorf("a fresh shell's state: %+v", first)
	}
	last := ap.seen[2]
	want := map[string]string{"X": "/", "HOME_COPY": os.Getenv("HOME"), "arr": "rm -rf a b", "NL": "a\nb", "REF": os.Getenv("HOME"), "OLDPWD": dir}
	for name, v := range want {
		if last.vars[name] != v {
			t.Errorf("var %s = %q, want %q (all: %q)", name, last.vars[name], v, last.vars)
		}
	}
	if len(last.vars) != len(want) || len(last.funcs) != 1 || last.funcs[0] != "f" || last.dir != "/tmp" {
		t.Errorf("state told: vars %q, funcs %q, dir %q", last.vars, last.funcs, last.dir)
	}
}

// An approver that cannot judge with the shell's state gets what it can
// judge: the command runs in a bash of its own. Background commands
// always run in one.
func TestShellNeedsShellApprover(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: dir, Approver: &dirApprover{}})
	for i, cmd := range []string{"X=1", `echo "${X-fresh}"`} {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		v, err := tr.Call(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && v.(Result).Output != "fresh\n" {
			t.Errorf("a command approved without the shell's state ran in it: %q", v.(Result).Output)
		}
	}
	mustRun(t, tr, "s", dir, "X=1")
	st := bgStart(t, tr, "s", dir, `echo "${X-fresh}"`)
	w := mustP[WaitResult](t, NewProcessTool(tr), "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 10})
	if w.Output != "fresh\n" {
		t.Errorf("a background command saw the session's shell: %q", w.Output)
	}
}
