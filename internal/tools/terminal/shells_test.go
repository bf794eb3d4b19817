//go:build unix

package terminal

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
)

// A shell unused for the idle time is closed; the session's next command
// starts a new one and says why the old one is gone.
func TestShellClosedWhenIdle(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	tr := newTerminal(t, Options{Clock: fake, ShellIdle: 10 * time.Minute})
	dir := t.TempDir()
	mustRun(t, tr, "s", dir, "X=set")
	pid := shellPid(t, tr, "s", dir)
	fake.Advance(9 * time.Minute)
	if got := shellPid(t, tr, "s", dir); got != pid {
		t.Fatalf("the shell was replaced before its idle time: %d, then %d", pid, got)
	}
	fake.Advance(10 * time.Minute)
	procgrouptest.WaitGone(t, []int{pid}, 10*time.Second)
	res := mustRun(t, tr, "s", dir, `echo "${X-gone}"`)
	if res.Output != "gone\n" || !strings.Contains(res.Note, "closed after 10m unused") {
		t.Fatalf("after the idle time: %q, note %q", res.Output, res.Note)
	}
}

// At most MaxShells run at once: a new session's shell replaces the one
// unused longest, whose session is told when it next runs a command.
func TestShellsCappedLeastRecentlyUsedFirst(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	tr := newTerminal(t, Options{Clock: fake, MaxShells: 2})
	dir := t.TempDir()
	pids := map[string]int{}
	for _, sid := range []string{"a", "b"} {
		mustRun(t, tr, sid, dir, "X="+sid)
		pids[sid] = shellPid(t, tr, sid, dir)
		fake.Advance(time.Second)
	}
	mustRun(t, tr, "a", dir, "true") // a is now the one used last
	fake.Advance(time.Second)
	mustRun(t, tr, "c", dir, "X=c")
	procgrouptest.WaitGone(t, []int{pids["b"]}, 10*time.Second)
	if got := shellPid(t, tr, "a", dir); got != pids["a"] {
		t.Errorf("a's shell was replaced: %d, then %d", pids["a"], got)
	}
	res := mustRun(t, tr, "b", dir, `echo "${X-gone}"`)
	if res.Output != "gone\n" || !strings.Contains(res.Note, "make room") {
		t.Errorf("b after its shell made room: %q, note %q", res.Output, res.Note)
	}
	if n := len(tr.shells.live); n > 2 {
		t.Errorf("%d shells alive, want at most 2", n)
	}
}

// Forget closes the session's shell and Close every shell, with what
// they left running.
func TestShellsClosedWithSessionAndTerminal(t *testing.T) {
	tr := New(Options{Fallback: approveAll{}})
	if err := tr.Available(); err != nil {
		t.Skip(err)
	}
	defer tr.Close()
	dir := t.TempDir()
	fifo := procgrouptest.NewFifo(t)
	done := make(chan error, 1)
	go func() {
		_, err := invoke(context.Background(), tr, "a", dir, map[string]any{"command": "sleep 300 & echo $! > " + fifo})
		done <- err
	}()
	left := procgrouptest.ReadPid(t, fifo, 10*time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := shellPid(t, tr, "a", dir)
	b := shellPid(t, tr, "b", dir)
	tr.Forget("a")
	procgrouptest.WaitGone(t, []int{a, left}, 10*time.Second)
	if !procgrouptest.Alive(b) {
		t.Fatal("Forget(a) closed b's shell")
	}
	if res := mustRun(t, tr, "a", dir, "true"); res.Note != "" {
		t.Errorf("a forgotten session's next command: note %q", res.Note)
	}
	a = shellPid(t, tr, "a", dir)
	tr.Close()
	procgrouptest.WaitGone(t, []int{a, b}, 10*time.Second)
}

// Output a command leaves running with & is not the next command's
// output: each command writes to a pipe of its own.
func TestLeftoverOutputStaysWithItsCommand(t *testing.T) {
	modes(t, Options{}, func(t *testing.T, tr *Terminal) {
		dir := t.TempDir()
		fifo := procgrouptest.NewFifo(t)
		res := mustRun(t, tr, "s", dir, "(read -r line < "+fifo+"; echo late) & echo started")
		if res.Output != "started\n" {
			t.Fatalf("first command: %q", res.Output)
		}
		if res := mustRun(t, tr, "s", dir, "echo go > "+fifo+"; wait; echo next"); res.Output != "next\n" {
			t.Fatalf("second command: %q; the first one's late output leaked into it", res.Output)
		}
	})
}

// Long output is cut the same way in either mode.
func TestLongOutputCut(t *testing.T) {
	modes(t, Options{MaxOutputBytes: 1000, MaxOutputLines: 10}, func(t *testing.T, tr *Terminal) {
		res := mustRun(t, tr, "s", t.TempDir(), "seq 1 100000; printf end")
		if !res.Truncated || !strings.HasPrefix(res.Output, "[output truncated: showing the last 10 of 100001 lines") ||
			!strings.HasSuffix(res.Output, "\n99999\n100000\nend") {
			t.Fatalf("output %q", res.Output)
		}
	})
}
