//go:build unix

package terminal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
	"github.com/hermes-go/hermes/internal/tool"
)

// alive returns the pids of live (not zombie) processes whose command line
// contains marker, read from /proc. Zombies are excluded because an
// orphan's reaping depends on the container's init, not on this package.
func alive(t *testing.T, marker string) []string {
	t.Helper()
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to look for leftover processes")
	}
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []string
	for _, p := range paths {
		cmdline, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil {
			continue
		}
		// stat is "pid (comm) S ...": the state follows the last ')'.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, filepath.Base(filepath.Dir(p)))
	}
	return pids
}

// waitGone fails the test when processes matching marker outlive a short
// grace (the kernel may take a moment to tear them down).
func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := alive(t, marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("leftover processes %v running %q", pids, marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	tr := newTerminal(t, Options{})
	start := time.Now()
	_, err := invoke(context.Background(), tr, "s", t.TempDir(), map[string]any{
		"command": "echo started; sleep 31.4159 & sleep 31.4159; wait",
		"timeout": 1,
	})
	elapsed := time.Since(start)
	te := wantCode(t, err, tool.CodeTimeout)
	if elapsed > 1*time.Second+KillGrace {
		t.Errorf("returned after %v, want about 1s", elapsed)
	}
	data, ok := te.Data.(Result)
	if !ok || data.Output != "started\n" || data.ExitCode != ExitTimeout {
		t.Errorf("data = %#v, want the partial output", te.Data)
	}
	if !strings.Contains(te.Message, "1s") || !strings.Contains(te.Message, "timeout") {
		t.Errorf("message = %q, want the limit and a hint", te.Message)
	}
	waitGone(t, "31.4159")
}

func TestTimeoutKillsWhatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	tr := newTerminal(t, Options{})
	start := time.Now()
	_, err := invoke(context.Background(), tr, "s", t.TempDir(), map[string]any{
		"command": "trap '' TERM; sleep 31.2718 & wait",
		"timeout": 1,
	})
	wantCode(t, err, tool.CodeTimeout)
	if elapsed := time.Since(start); elapsed > 1*time.Second+KillGrace+time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	waitGone(t, "31.2718")
}

func TestInterruptKillsAtOnce(t *testing.T) {
	t.Parallel()
	tr := newTerminal(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := invoke(ctx, tr, "s", t.TempDir(), map[string]any{"command": "sleep 31.5772 & wait"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled wrapped", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	waitGone(t, "31.5772")
}

func TestCancelledBeforeRunDoesNotRun(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := invoke(ctx, tr, "s", dir, map[string]any{"command": "touch created"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Fatal("command ran after cancellation")
	}
}

func TestBackgroundedProcessDoesNotBlock(t *testing.T) {
	t.Parallel()
	tr := newTerminal(t, Options{})
	start := time.Now()
	res, err := invoke(context.Background(), tr, "s", t.TempDir(), map[string]any{
		"command": "(sleep 2; echo late) & echo now",
	})
	if err != nil || res.Output != "now\n" || res.ExitCode != 0 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("waited %v for a backgrounded process", elapsed)
	}
}

func TestBackgroundSubshellKeepsCwdReport(t *testing.T) {
	tr := newTerminal(t, Options{})
	base, sub := newTree(t)
	// A pure-bash background loop never execs, so it keeps every descriptor
	// bash had; the directory must still be reported.
	res := mustRun(t, tr, "s", base, "cd sub; { for i in 1 2 3 4; do sleep 0.3; done; } >/dev/null 2>&1 &")
	if res.Cwd != sub {
		t.Fatalf("cwd = %q, want %s", res.Cwd, sub)
	}
}

func TestNoControllingTerminal(t *testing.T) {
	tr := newTerminal(t, Options{})
	res := mustRun(t, tr, "s", t.TempDir(), "if (exec </dev/tty) 2>/dev/null; then echo tty; else echo none; fi")
	if res.Output != "none\n" {
		t.Fatalf("command could open /dev/tty: %q", res.Output)
	}
}

// Foreground and background commands lead a group under a guard, which
// kills the whole group when it gets the signal the kernel sends it if
// hermes dies (procgroup.DeathSignal): nothing the command started lives
// on as an orphan.
func TestDeathSignalKillsTheCommandsGroup(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "trap '' TERM; sleep 31.9191 & sleep 31.9191 & echo up; wait")
	pollUntil(t, pt, "s", st.ProcessID, "up")
	members := procgrouptest.Members(t, st.PID)
	if len(members) < 4 {
		t.Fatalf("group %d: %v, want the guard, the shell and two sleeps", st.PID, members)
	}
	if err := syscall.Kill(st.PID, procgroup.DeathSignal); err != nil {
		t.Fatal(err)
	}
	procgrouptest.WaitGone(t, members, 5*time.Second)

	fifo := procgrouptest.NewFifo(t)
	done := make(chan error, 1)
	go func() {
		_, err := invoke(context.Background(), tr, "s", t.TempDir(), map[string]any{
			"command": "trap '' TERM; sleep 31.9292 & echo $$ > " + fifo + "; wait"})
		done <- err
	}()
	// $$ is the session's shell, in the group its guard leads.
	guard := procgrouptest.Group(t, procgrouptest.ReadPid(t, fifo, 10*time.Second))
	members = procgrouptest.Members(t, guard)
	if len(members) < 3 {
		t.Fatalf("group %d: %v, want the guard, the shell and a sleep", guard, members)
	}
	if err := syscall.Kill(guard, procgroup.DeathSignal); err != nil {
		t.Fatal(err)
	}
	procgrouptest.WaitGone(t, members, 5*time.Second)
	<-done
}
