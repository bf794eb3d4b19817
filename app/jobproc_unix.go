//go:build unix

package app

import (
	"os/exec"
	"syscall"
)

// detach puts a job's process in a process group of its own, so Ctrl-C in
// the terminal running hermes serve reaches serve alone, and serve gives
// the job its shutdown grace before passing the stop on.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
