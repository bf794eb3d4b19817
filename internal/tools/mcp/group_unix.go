//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a stdio server in a process group of its own, so that
// the processes it starts (npx starts node, uvx starts python) can be
// stopped with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of a stdio server's process group once its
// session ended: grandchildren that did not exit with their parent.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
