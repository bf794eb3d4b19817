//go:build unix

package terminal

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
)

// Grace periods of a run, on every Backend. KillGrace is how long a
// timed-out command may take to exit after SIGTERM before it gets
// SIGKILL. DrainGrace is how long to wait for the output pipe to close
// after the shell exited: a process the command left running with `&` may
// hold it open for good, and its later output is then discarded rather
// than waited for.
const (
	KillGrace  = 2 * time.Second
	DrainGrace = 250 * time.Millisecond
)

// ExitTimeout is the exit code reported for a command killed on timeout,
// the convention of timeout(1).
const ExitTimeout = 124

func platformSupported() error { return nil }

// wrapCommand makes the script the shell runs (see WrapCommand): the
// report of the directory on file descriptor 3 is ended by a NUL so a
// report cut short is recognised. `pwd -P` resolves symlinks without a
// subprocess and fails, reporting nothing, when the directory was deleted.
func wrapCommand(command string) string {
	return WrapCommand(command, "builtin pwd -P >&3 2>/dev/null && builtin printf '\\0' >&3\n")
}

// run executes command in dir with the shell, in a new session (so it has
// no controlling terminal to stop on, and one process group to kill),
// stdin from /dev/null, stdout and stderr on one pipe so their order is
// kept. It kills the group when timeout passes or ctx is done. The shell
// is a procgroup guard, so the group dies with hermes too.
func (t *Terminal) run(ctx context.Context, command, dir string, timeout time.Duration) (RunResult, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return RunResult{}, err
	}
	pwdR, pwdW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return RunResult{}, err
	}
	defer pwdR.Close()

	cmd := exec.Command(t.shellPath, "-c", procgroup.Guard(wrapCommand(command)))
	cmd.Dir = dir
	cmd.Env = t.Environ()
	cmd.Stdout = outW
	cmd.Stderr = outW
	cmd.ExtraFiles = []*os.File{pwdW}
	procgroup.NewSession(cmd)
	waited, err := procgroup.Start(cmd)
	outW.Close()
	pwdW.Close()
	if err != nil {
		outR.Close()
		return RunResult{}, err
	}

	capt := NewCapture(t.opt.MaxOutputBytes)
	drained := make(chan struct{})
	go func() {
		// Runs until every holder of the pipe is gone, which may be after
		// run returns; capt discards what arrives after the snapshot.
		_, _ = io.Copy(capt, outR)
		outR.Close()
		close(drained)
	}()

	res := RunResult{Cause: Exited}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	pid := cmd.Process.Pid
	select {
	case <-waited:
	case <-timer.C:
		res.Cause = TimedOut
		terminate(pid, waited)
	case <-ctx.Done():
		res.Cause = Interrupted
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-waited
	}

	select {
	case <-drained:
	case <-time.After(DrainGrace):
	}
	res.Output = capt.Snapshot(t.opt.MaxOutputLines)
	if res.Cause != Exited {
		res.ExitCode = ExitTimeout
		return res, nil
	}
	res.ExitCode = exitCode(cmd.ProcessState)
	res.Cwd = readPwd(pwdR)
	return res, nil
}

// terminate ends a timed-out command: SIGTERM to its whole process group,
// so programs may clean up, then SIGKILL to whatever is left of the group
// once the shell exited (waited delivered or closed) or KillGrace passed.
func terminate[T any](pid int, waited <-chan T) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
	select {
	case <-waited:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	case <-grace.C:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-waited
	}
}

// exitCode is the shell's exit status, or 128+signal when a signal killed
// it, as shells report it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// readPwd reads the directory the wrapper reported on fd 3, or "" when it
// reported none. The deadline covers a background subshell that kept a
// copy of the descriptor open.
func readPwd(r *os.File) string {
	_ = r.SetReadDeadline(time.Now().Add(DrainGrace))
	dir, err := bufio.NewReader(r).ReadString(0)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSuffix(dir, "\x00"), "\n")
}

// makeFifo makes a named pipe at path, for commands' output.
func makeFifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// openFifo opens the named pipe at path twice for a command's output:
// out for reading, and keeper for writing, which hermes holds until the
// command is done so that out does not end before the shell has opened
// the pipe.
func openFifo(path string) (out, keeper *os.File, err error) {
	if out, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
		return nil, nil, err
	}
	if keeper, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err != nil {
		out.Close()
		return nil, nil, err
	}
	return out, keeper, nil
}
