//go:build unix

package declared

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that
// cancelling the call stops everything it started: SIGTERM to the group
// when the context ends (exec then waits killGrace before SIGKILL).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

// killGroup sends SIGKILL to what is left of a cancelled command's
// process group: children that ignored SIGTERM or outlived the program.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
