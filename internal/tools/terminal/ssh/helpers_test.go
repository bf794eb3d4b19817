//go:build unix

package ssh

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/terminal"
	"github.com/hermes-go/hermes/internal/tools/terminal/ssh/sshtest"
)

type approveAll struct{}

func (approveAll) ApproveCommand(context.Context, string) error { return nil }

// sshConfigFor is a Config for the server, starting in dir.
func sshConfigFor(s *sshtest.Server, dir string) Config {
	return Config{Host: "127.0.0.1", Port: s.Port, User: s.User, KeyFile: s.KeyFile,
		KnownHostsFile: s.KnownHosts, ConnectTimeout: 5 * time.Second, Dir: dir}
}

// newSSHTerminal returns a Terminal on the server that approves
// everything, closed when the test ends, and its backend.
func newSSHTerminal(t *testing.T, s *sshtest.Server, opt terminal.Options, dir string) (*terminal.Terminal, *Backend) {
	t.Helper()
	b := New(sshConfigFor(s, dir))
	opt.Backend = b
	if opt.Fallback == nil {
		opt.Fallback = approveAll{}
	}
	tr := terminal.New(opt)
	if err := tr.Available(); err != nil {
		t.Fatalf("Available: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr, b
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

// callIn calls tl in session sid, whose local Workdir is deliberately
// somewhere else than the remote directory.
func callIn(ctx context.Context, tl tool.Tool, sid string, args map[string]any) (any, error) {
	ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: sid, CallID: "c1", Workdir: "/"})
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return tl.Call(ctx, raw)
}

// call is callIn without a deadline.
func call(tl tool.Tool, sid string, args map[string]any) (any, error) {
	return callIn(context.Background(), tl, sid, args)
}

// must calls tl and fails the test on a call error.
func must[T any](t *testing.T, tl tool.Tool, sid string, args map[string]any) T {
	t.Helper()
	v, err := call(tl, sid, args)
	if err != nil {
		t.Fatalf("%s %v: %v", tl.Spec().Name, args, err)
	}
	return v.(T)
}

// invoke calls the terminal in session sid.
func invoke(ctx context.Context, tr *terminal.Terminal, sid string, args map[string]any) (terminal.Result, error) {
	v, err := callIn(ctx, tr, sid, args)
	if err != nil {
		return terminal.Result{}, err
	}
	return v.(terminal.Result), nil
}

// mustRun runs command and fails the test on a call error.
func mustRun(t *testing.T, tr *terminal.Terminal, sid, command string) terminal.Result {
	t.Helper()
	return must[terminal.Result](t, tr, sid, map[string]any{"command": command})
}

// bgStart starts command in the background in session sid.
func bgStart(t *testing.T, tr *terminal.Terminal, sid, command string) terminal.Started {
	t.Helper()
	return must[terminal.Started](t, tr, sid, map[string]any{"command": command, "background": true})
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

// pollUntil polls the process id until its output contains want.
func pollUntil(t *testing.T, pt *terminal.ProcessTool, sid, id, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var all string
	for {
		all += must[terminal.PollResult](t, pt, sid, map[string]any{"action": "poll", "session_id": id}).Output
		if strings.Contains(all, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q never contained %q", all, want)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// gone reports whether no process's command line contains marker after a
// moment for the kill to land (the host is this machine).
func gone(t *testing.T, marker string) bool {
	t.Helper()
	for i := 0; i < 50; i++ {
		out, _ := exec.Command("pgrep", "-f", marker).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
