package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTree returns a real (symlink-free) temporary directory holding sub/.
func newTree(t *testing.T) (base, sub string) {
	t.Helper()
	base = realDir(t, t.TempDir())
	sub = filepath.Join(base, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return base, sub
}

func TestCwdPersistsAcrossCalls(t *testing.T) { modes(t, Options{}, testCwdPersistsAcrossCalls) }

func testCwdPersistsAcrossCalls(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	if err := os.WriteFile(filepath.Join(sub, "marker"), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	res := mustRun(t, tr, "s", base, "cd sub && ls")
	if res.Output != "marker\n" || res.Cwd != sub {
		t.Fatalf("cd sub && ls: output %q, cwd %q", res.Output, res.Cwd)
	}
	res = mustRun(t, tr, "s", base, "pwd")
	if res.Output != sub+"\n" || res.Cwd != sub {
		t.Fatalf("later pwd: output %q, cwd %q, want %s", res.Output, res.Cwd, sub)
	}
	// A failing command after a cd still moves the session.
	res = mustRun(t, tr, "s", base, "cd .. && false")
	if res.ExitCode != 1 || res.Cwd != base {
		t.Fatalf("cd .. && false: exit %d, cwd %q", res.ExitCode, res.Cwd)
	}
	if res := mustRun(t, tr, "s", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("pwd after cd ..: %q", res.Output)
	}
}

func TestCwdIsolatedBetweenSessions(t *testing.T) {
	modes(t, Options{}, testCwdIsolatedBetweenSessions)
}

func testCwdIsolatedBetweenSessions(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	mustRun(t, tr, "a", base, "cd sub")
	if res := mustRun(t, tr, "b", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("session b saw session a's cd: %q", res.Output)
	}
	if res := mustRun(t, tr, "a", base, "pwd"); res.Output != sub+"\n" {
		t.Fatalf("session a lost its cd: %q", res.Output)
	}
	tr.Forget("a")
	if res := mustRun(t, tr, "a", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("after Forget: %q", res.Output)
	}
}

func TestEarlyExitLeavesCwd(t *testing.T) { modes(t, Options{}, testEarlyExitLeavesCwd) }

func testEarlyExitLeavesCwd(t *testing.T, tr *Terminal) {
	base, _ := newTree(t)
	res := mustRun(t, tr, "s", base, "cd sub; exit 4")
	if res.ExitCode != 4 || res.Cwd != base {
		t.Fatalf("exit inside command: exit %d, cwd %q", res.ExitCode, res.Cwd)
	}
	if res := mustRun(t, tr, "s", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("pwd: %q", res.Output)
	}
}

func TestWorkdirArgumentIsOneOff(t *testing.T) { modes(t, Options{}, testWorkdirArgumentIsOneOff) }

func testWorkdirArgumentIsOneOff(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	res, err := invoke(context.Background(), tr, "s", base, map[string]any{"command": "pwd", "workdir": "sub"})
	if err != nil || res.Output != sub+"\n" || res.Cwd != sub {
		t.Fatalf("relative workdir: %+v, %v", res, err)
	}
	res, err = invoke(context.Background(), tr, "s", base, map[string]any{"command": "pwd", "workdir": sub})
	if err != nil || res.Output != sub+"\n" {
		t.Fatalf("absolute workdir: %+v, %v", res, err)
	}
	if res := mustRun(t, tr, "s", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("workdir moved the session: %q", res.Output)
	}
}

func TestDeletedCwdFallsBack(t *testing.T) { modes(t, Options{}, testDeletedCwdFallsBack) }

func testDeletedCwdFallsBack(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	mustRun(t, tr, "s", base, "cd sub")
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, tr, "s", base, "pwd")
	if res.Output != base+"\n" || res.Cwd != base {
		t.Fatalf("output %q, cwd %q, want %s", res.Output, res.Cwd, base)
	}
	if !strings.Contains(res.Note, sub) || !strings.Contains(res.Note, "no longer exists") {
		t.Fatalf("note = %q", res.Note)
	}
	if res := mustRun(t, tr, "s", base, "true"); res.Note != "" {
		t.Fatalf("note repeated: %q", res.Note)
	}
}

func TestCommandDeletingItsCwd(t *testing.T) { modes(t, Options{}, testCommandDeletingItsCwd) }

func testCommandDeletingItsCwd(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	// The shell cannot report a deleted directory, so the call says where
	// it started and the session stays there.
	res := mustRun(t, tr, "s", base, "cd sub && rmdir "+sub)
	if res.ExitCode != 0 || res.Cwd != base {
		t.Fatalf("exit %d, cwd %q, want %s", res.ExitCode, res.Cwd, base)
	}
	if res := mustRun(t, tr, "s", base, "pwd"); res.Output != base+"\n" {
		t.Fatalf("pwd: %q", res.Output)
	}
}

func TestSessionWorkdirChangeResets(t *testing.T) {
	modes(t, Options{}, testSessionWorkdirChangeResets)
}

func testSessionWorkdirChangeResets(t *testing.T, tr *Terminal) {
	base, _ := newTree(t)
	other := realDir(t, t.TempDir())
	mustRun(t, tr, "s", base, "cd sub")
	if res := mustRun(t, tr, "s", other, "pwd"); res.Output != other+"\n" {
		t.Fatalf("new session Workdir ignored: %q", res.Output)
	}
}

func TestSymlinkedCwdResolved(t *testing.T) { modes(t, Options{}, testSymlinkedCwdResolved) }

func testSymlinkedCwdResolved(t *testing.T, tr *Terminal) {
	base, sub := newTree(t)
	if err := os.Symlink(sub, filepath.Join(base, "link")); err != nil {
		t.Skip(err)
	}
	if res := mustRun(t, tr, "s", base, "cd link"); res.Cwd != sub {
		t.Fatalf("cwd = %q, want the resolved %s", res.Cwd, sub)
	}
}
