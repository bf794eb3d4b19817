// Package procgroup starts the processes hermes runs for its tools (shell
// commands, background processes, declared command tools, job scripts) so
// that they die with hermes.
//
// Each such process leads a process group of its own, so one signal
// reaches everything it started. On Linux the kernel also sends the leader
// a signal when hermes dies, however it dies (kill -9 included): the
// parent-death signal. A signal to the leader alone would leave the rest
// of the group running as orphans, so the leader is a small shell guard
// (see Guard) that catches that signal and kills its whole group with
// SIGKILL. hermes's own shutdown kills the groups itself.
package procgroup

import (
	"os/exec"
	"runtime"
)

// guardHead installs the guard's traps and opens the subshell the
// program runs in. DeathSignal (SIGUSR2) makes the guard SIGKILL its whole
// group. The guard ignores HUP, TERM and USR1, the signals a program is
// commonly stopped or told something with, so that when the whole group
// gets one the guard outlives the program and reports the program's own
// exit; the subshell puts their default dispositions back before the
// program runs. INT and QUIT are left alone: a shell without job control
// starts background commands with them ignored, which a subshell cannot
// undo, so ignoring them in the guard as well would change nothing for
// the program and only keep the guard alive past it.
const guardHead = "trap 'kill -9 0' USR2; trap '' HUP TERM USR1; { ( trap - HUP TERM USR1; "

// guardTail starts the subshell in the background, keeping the guard's
// stdin for it, and waits for it: a shell without job control gives
// background commands /dev/null for stdin, so the real one is passed on
// fd 8 and closed again before the program runs. The guard exits with the
// program's status (128+N when signal N ended it).
const guardTail = "\n) <&8 8<&- & } 8<&0\nwait $!\n"

// Guard wraps a POSIX shell script so that the shell running it is a
// guard: the script runs in a subshell of the guard, with the guard's
// stdin, and the guard waits for it. When hermes dies the guard receives
// DeathSignal and kills the whole group. The script keeps its line
// numbers. In dash (sh on Debian), as in any POSIX shell without job
// control, the script starts with SIGINT and SIGQUIT ignored; in bash it
// does not.
func Guard(script string) string {
	return guardHead + script + guardTail
}

// GuardArgv returns the command line that runs argv under a guard in sh:
// the program is started by the guard with the guard's stdin, and argv
// reaches it unchanged, never parsed by the shell. Like a script under sh,
// the program starts with SIGINT and SIGQUIT ignored.
func GuardArgv(argv []string) []string {
	return append([]string{"sh", "-c", guardHead + `exec "$@"` + guardTail, "sh"}, argv...)
}

// Start starts cmd and waits for it on a goroutine locked to its OS
// thread, sending Wait's result on the returned channel. The kernel
// sends the parent-death signal when the thread that started the process
// exits, not the process (go.dev/issue/27505); a goroutine that stays on
// that thread until the process exited keeps it alive that long. Since
// Wait runs at once, cmd must not use the pipes of StdinPipe, StdoutPipe
// or StderrPipe, which Wait closes; give it os.Pipe ends or writers.
func Start(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}
