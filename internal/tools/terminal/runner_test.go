package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// fakeRunner answers every command with ran and records what it was
// asked to run.
type fakeRunner struct {
	st   shell.State
	ran  Ran
	err  error
	cmds []RunnerCommand
}

func (f *fakeRunner) State() shell.State { return f.st }

func (f *fakeRunner) Run(_ context.Context, cmd RunnerCommand) (Ran, error) {
	f.cmds = append(f.cmds, cmd)
	return f.ran, f.err
}

// callWith calls the terminal with r on the context and approver ap.
func callWith(t *testing.T, tr *Terminal, r Runner, ap tool.Approver, dir string, args map[string]any) (any, error) {
	t.Helper()
	ctx := tool.WithInvocation(WithRunner(context.Background(), r), tool.Invocation{SessionID: "s", CallID: "c1", Workdir: dir, Approver: ap})
	raw, _ := json.Marshal(args)
	return tr.Call(ctx, raw)
}

// A foreground command goes to the runner, approved knowing the runner's
// state, with the caps, the timeout, the directory and the secrets to
// hide; its exit code and final directory come back as a local run's,
// and the directory is where the session's next command starts.
func TestRunnerRunsForegroundCommands(t *testing.T) {
	tr := newTerminal(t, Options{MaxOutputBytes: 1000, MaxOutputLines: 10, ScrubNames: []string{"MY_TOKEN"}})
	dir := realDir(t, t.TempDir())
	r := &fakeRunner{st: shell.State{Vars: map[string]string{"D": "/"}}, ran: Ran{Output: "hi\n", ExitCode: 3, Cwd: "/tmp", Note: "ran there"}}
	ap := &stateApprover{}
	v, err := callWith(t, tr, r, ap, dir, map[string]any{"command": "cd /tmp; echo hi; exit 3", "timeout": 7})
	if err != nil {
		t.Fatal(err)
	}
	res := v.(Result)
	if res.Output != "hi\n" || res.ExitCode != 3 || res.Cwd != "/tmp" || res.Note != "ran there" {
		t.Errorf("result = %+v", res)
	}
	if len(r.cmds) != 1 {
		t.Fatalf("runner ran %d commands", len(r.cmds))
	}
	c := r.cmds[0]
	if c.Text != "cd /tmp; echo hi; exit 3" || c.Dir != dir || c.Timeout != 7*time.Second || c.MaxOutputBytes != 1000 || c.MaxOutputLines != 10 {
		t.Errorf("runner got %+v", c)
	}
	if c.Hidden == nil || !c.Hidden("MY_TOKEN") || !c.Hidden("HERMES_OPENAI_API_KEY") || c.Hidden("PATH") {
		t.Errorf("the runner is not told which variables to hide")
	}
	if len(ap.seen) != 1 || ap.seen[0].vars["D"] != "/" || ap.seen[0].dir != dir {
		t.Errorf("approver saw %+v, want the runner's state", ap.seen)
	}
	if _, err := callWith(t, tr, r, ap, dir, map[string]any{"command": "pwd"}); err != nil {
		t.Fatal(err)
	}
	if r.cmds[1].Dir != "/tmp" {
		t.Errorf("the next command starts in %q, want where the last ended", r.cmds[1].Dir)
	}
}

// A command the approver refuses never reaches the runner, and neither
// does one for an approver that cannot judge the runner's state, nor a
// background command: those run as without a runner.
func TestRunnerOnlyForApprovedForeground(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := realDir(t, t.TempDir())
	r := &fakeRunner{ran: Ran{Output: "runner\n"}}
	var asked []string
	_, err := callWith(t, tr, r, denyAll{&asked}, dir, map[string]any{"command": "rm -rf ./*"})
	wantCode(t, err, tool.CodeDenied)
	v, err := callWith(t, tr, r, &dirApprover{}, dir, map[string]any{"command": "echo local"})
	if err != nil || v.(Result).Output != "local\n" {
		t.Errorf("with a DirApprover: %v, %v", v, err)
	}
	v, err = callWith(t, tr, r, approveAll{}, dir, map[string]any{"command": "echo bg", "background": true})
	if err != nil || v.(Started).ProcessID == "" {
		t.Errorf("background: %v, %v", v, err)
	}
	if len(r.cmds) != 0 {
		t.Errorf("the runner ran %q", r.cmds[0].Text)
	}
}

// The runner's output is cut to the terminal's caps with the usual
// notice; output the runner itself cut says so too; a timeout is the
// usual timeout error, with the output in its data; a failure to run is
// an error naming the shell.
func TestRunnerOutputAndStops(t *testing.T) {
	tr := newTerminal(t, Options{MaxOutputBytes: 1000, MaxOutputLines: 3})
	dir := realDir(t, t.TempDir())
	r := &fakeRunner{ran: Ran{Output: "1\n2\n3\n4\n5\n"}}
	v, err := callWith(t, tr, r, approveAll{}, dir, map[string]any{"command": "seq 5"})
	if err != nil || !v.(Result).Truncated || !strings.HasSuffix(v.(Result).Output, "\n3\n4\n5\n") || !strings.Contains(v.(Result).Output, "last 3 of 5 lines") {
		t.Errorf("line cap: %+v, %v", v, err)
	}
	for _, out := range []string{"tail\n", "a\nb\nc\nd\n"} {
		r.ran = Ran{Output: out, Truncated: true}
		v, err = callWith(t, tr, r, approveAll{}, dir, map[string]any{"command": "yes"})
		if res, _ := v.(Result); err != nil || !res.Truncated || !strings.Contains(res.Output, "kept only the end") || strings.Count(res.Output, "[output truncated") != 1 {
			t.Errorf("cut by the runner: %+v, %v", v, err)
		}
	}
	if res := v.(Result); !strings.HasSuffix(res.Output, "\nb\nc\nd\n") || !strings.HasPrefix(res.Output, "[output truncated: showing the last 3 lines") {
		t.Errorf("cut by the runner and to the line cap: %q", res.Output)
	}
	r.ran = Ran{Output: "partial\n", ExitCode: ExitTimeout, Cause: TimedOut}
	_, err = callWith(t, tr, r, approveAll{}, dir, map[string]any{"command": "sleep 100", "timeout": 1})
	te := wantCode(t, err, tool.CodeTimeout)
	if d, ok := te.Data.(Result); !ok || d.Output != "partial\n" || d.ExitCode != ExitTimeout {
		t.Errorf("timeout data = %+v", te.Data)
	}
	r.err = errors.New("the editor refused")
	_, err = callWith(t, tr, r, approveAll{}, dir, map[string]any{"command": "true"})
	if err == nil || !strings.Contains(err.Error(), "the editor refused") {
		t.Errorf("a runner's failure: %v", err)
	}
}

// ExportedState tells the approver the exported variables set or changed
// since the shell started, not those it started with nor bash's own.
func TestExportedState(t *testing.T) {
	base := "declare -x HOME=\"/home/u\"\ndeclare -x PATH=\"/bin\"\ndeclare -x SHLVL=\"1\"\n"
	now := "declare -x D=\"/home/u\"\ndeclare -x HOME=\"/home/u\"\ndeclare -x PATH=\"/venv/bin:/bin\"\ndeclare -x SHLVL=\"2\"\ndeclare -x OLDPWD\n"
	st := ExportedState(base, now)
	if len(st.Vars) != 2 || st.Vars["D"] != "/home/u" || st.Vars["PATH"] != "/venv/bin:/bin" {
		t.Errorf("state = %q", st.Vars)
	}
}
