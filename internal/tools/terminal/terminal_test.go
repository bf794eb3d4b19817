package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// approveAll approves every command; it can judge with a shell's state,
// so commands run in the session's persistent shell.
type approveAll struct{}

func (approveAll) ApproveCommand(context.Context, string) error           { return nil }
func (approveAll) ApproveCommandIn(context.Context, string, string) error { return nil }
func (approveAll) ApproveShellCommand(context.Context, string, shell.State, string) error {
	return nil
}

type denyAll struct{ asked *[]string }

func (d denyAll) ApproveCommand(_ context.Context, cmd string) error {
	*d.asked = append(*d.asked, cmd)
	return errors.New("the user declined: deleting files was not requested")
}

// newTerminal returns a Terminal that approves everything, skipping the
// test when bash is missing; it is closed when the test ends, so no
// shell outlives it.
func newTerminal(t testing.TB, opt Options) *Terminal {
	t.Helper()
	if opt.Fallback == nil {
		opt.Fallback = approveAll{}
	}
	tr := New(opt)
	if err := tr.Available(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// modes runs f with a Terminal whose commands run in the session's
// persistent shell and with one that starts a bash per call: a command
// must come out the same either way.
func modes(t *testing.T, opt Options, f func(t *testing.T, tr *Terminal)) {
	for _, perCall := range []bool{false, true} {
		name := "persistent"
		if perCall {
			name = "per-call"
		}
		t.Run(name, func(t *testing.T) {
			o := opt
			o.SpawnPerCall = perCall
			f(t, newTerminal(t, o))
		})
	}
}

// realDir resolves symlinks, as `pwd -P` does, so paths compare equal.
func realDir(t testing.TB, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// invoke calls the tool in session sid with Workdir workdir.
func invoke(ctx context.Context, tr *Terminal, sid, workdir string, args map[string]any) (Result, error) {
	ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: sid, CallID: "c1", Workdir: workdir})
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	v, err := tr.Call(ctx, raw)
	if err != nil {
		return Result{}, err
	}
	return v.(Result), nil
}

// mustRun runs command and fails the test on a call error.
func mustRun(t *testing.T, tr *Terminal, sid, workdir, command string) Result {
	t.Helper()
	res, err := invoke(context.Background(), tr, sid, workdir, map[string]any{"command": command})
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return res
}

// wantCode fails the test unless err is a *tool.Error with code.
func wantCode(t *testing.T, err error, code tool.Code) *tool.Error {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	return te
}

func TestOutputAndExitCode(t *testing.T) { modes(t, Options{}, testOutputAndExitCode) }

func testOutputAndExitCode(t *testing.T, tr *Terminal) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cmd  string
		out  string
		code int
	}{
		{"echo hello", "hello\n", 0},
		{"echo partial; exit 3", "partial\n", 3},
		{"false", "", 1},
		{"no-such-command-here 2>/dev/null", "", 127},
		{"kill -KILL $$", "", 137},
		{"# only a comment", "", 0},
		{"printf 'a\\nb'", "a\nb", 0},
		{"cat <<'EOF'\nline $HOME\nEOF", "line $HOME\n", 0},
		{"read line; echo \"read=$?\"", "read=1\n", 0}, // stdin is empty
	} {
		res := mustRun(t, tr, "s", dir, tc.cmd)
		if res.Output != tc.out || res.ExitCode != tc.code || res.Truncated {
			t.Errorf("%q: got (%q, %d, truncated %v), want (%q, %d)", tc.cmd, res.Output, res.ExitCode, res.Truncated, tc.out, tc.code)
		}
	}
}

func TestStderrInterleaved(t *testing.T) { modes(t, Options{}, testStderrInterleaved) }

func testStderrInterleaved(t *testing.T, tr *Terminal) {
	res := mustRun(t, tr, "s", t.TempDir(), "echo one; echo two >&2; echo three; ls /no/such/path; echo four")
	lines := strings.Split(strings.TrimSuffix(res.Output, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "one" || lines[1] != "two" || lines[2] != "three" ||
		!strings.Contains(lines[3], "/no/such/path") || lines[4] != "four" {
		t.Fatalf("output = %q", res.Output)
	}
}

func TestUnicodeOutput(t *testing.T) { modes(t, Options{}, testUnicodeOutput) }

func testUnicodeOutput(t *testing.T, tr *Terminal) {
	const text = "你好，世界！终端输出保持完整。🙂"
	res := mustRun(t, tr, "s", t.TempDir(), "echo '"+text+"'; printf '%s\\n' '"+text+"' >&2")
	if want := text + "\n" + text + "\n"; res.Output != want {
		t.Fatalf("output = %q, want %q", res.Output, want)
	}
}

func TestDeniedCommandDoesNotRun(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	var asked []string
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{
		SessionID: "s", Workdir: dir, Approver: denyAll{&asked},
	})
	_, err := tr.Call(ctx, json.RawMessage(`{"command":"touch created"}`))
	te := wantCode(t, err, tool.CodeDenied)
	if !strings.Contains(te.Message, "declined") {
		t.Errorf("message = %q, want the approver's reason", te.Message)
	}
	if len(asked) != 1 || asked[0] != "touch created" {
		t.Errorf("approver asked %q", asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Fatalf("denied command ran: stat err = %v", err)
	}
}

func TestNoApproverDeniesAll(t *testing.T) {
	tr := New(Options{})
	if tr.Available() != nil {
		t.Skip(tr.Available())
	}
	dir := t.TempDir()
	_, err := invoke(context.Background(), tr, "s", dir, map[string]any{"command": "touch created"})
	wantCode(t, err, tool.CodeDenied)
	if _, err := os.Stat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Fatalf("command ran without an approver")
	}
}

func TestInvalidArguments(t *testing.T) {
	tr := newTerminal(t, Options{MaxTimeout: 60 * time.Second})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"command": "  "},
		{"command": "true", "timeout": 61},
		{"command": "true", "timeout": -1},
		{"command": "true", "workdir": "missing"},
		{"command": "true", "workdir": "file"},
		{"command": "echo a\x00b"},
		{"command": strings.Repeat("x", maxCommandBytes+1)},
	} {
		_, err := invoke(context.Background(), tr, "s", dir, args)
		te := wantCode(t, err, tool.CodeInvalidArguments)
		if te.Message == "" {
			t.Errorf("%v: empty message", args)
		}
	}
}

func TestMissingSessionWorkdir(t *testing.T) {
	tr := newTerminal(t, Options{})
	_, err := invoke(context.Background(), tr, "s", filepath.Join(t.TempDir(), "gone"), map[string]any{"command": "true"})
	wantCode(t, err, tool.CodeNotFound)
}

func TestSpec(t *testing.T) {
	tr := New(Options{MaxTimeout: 100 * time.Second})
	s := tr.Spec()
	if s.Name != "terminal" || s.Toolset != "terminal" || s.ParallelSafe || s.Idempotent {
		t.Errorf("spec = %+v", s)
	}
	if s.Timeout != 110*time.Second {
		t.Errorf("Timeout = %v, want MaxTimeout + 10s", s.Timeout)
	}
	if !strings.Contains(s.Description, "exit_code") {
		t.Errorf("description not embedded: %q", s.Description)
	}
	// The description says what carries over from one call to the next,
	// which depends on whether the session has a shell of its own.
	if tr.shells != nil && !strings.Contains(s.Description, "shell variables, `export`s, functions and activated virtualenvs carry over") {
		t.Errorf("description does not say variables carry over: %q", s.Description)
	}
	perCall := New(Options{SpawnPerCall: true}).Spec().Description
	if !strings.Contains(perCall, "Every call is a new `bash -c` process") || strings.Contains(perCall, "same bash") ||
		strings.Contains(perCall, "shell ends") {
		t.Errorf("per-call description: %q", perCall)
	}
	var schema struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Maximum int    `json:"maximum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Properties) != 4 || schema.Properties["timeout"].Maximum != 100 ||
		len(schema.Required) != 1 || schema.Required[0] != "command" {
		t.Errorf("schema = %s", s.Parameters)
	}
}

func TestShellMissing(t *testing.T) {
	tr := New(Options{Shell: "no-such-shell-for-hermes", Fallback: approveAll{}})
	if tr.Available() == nil {
		t.Fatal("Available() = nil for a missing shell")
	}
	_, err := invoke(context.Background(), tr, "s", t.TempDir(), map[string]any{"command": "true"})
	wantCode(t, err, tool.CodeUpstreamUnavailable)
}

// BenchmarkTrue measures a whole call of a trivial command; compare with
// BenchmarkBareShell to see what the tool adds to starting bash.
func BenchmarkTrue(b *testing.B) {
	tr := newTerminal(b, Options{})
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "bench", Workdir: b.TempDir()})
	args := json.RawMessage(`{"command":"true"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareShell is the floor: starting `bash -c true` and waiting.
func BenchmarkBareShell(b *testing.B) {
	tr := newTerminal(b, Options{})
	for b.Loop() {
		if err := exec.Command(tr.shellPath, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
