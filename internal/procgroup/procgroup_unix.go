//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// DeathSignal is the signal the kernel sends a guard when hermes dies
// (Linux), and on which the guard kills its group.
const DeathSignal = syscall.SIGUSR2

// NewSession makes cmd start in a session of its own, and so in a new
// process group without a controlling terminal, with the parent-death
// signal set where the platform has one.
func NewSession(cmd *exec.Cmd) {
	a := &syscall.SysProcAttr{Setsid: true}
	setParentDeathSignal(a, DeathSignal)
	cmd.SysProcAttr = a
}

// NewGroup makes cmd start in a process group of its own, in hermes's
// session, with the parent-death signal set where the platform has one.
func NewGroup(cmd *exec.Cmd) {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a, DeathSignal)
	cmd.SysProcAttr = a
}

// NewGroupTerm is NewGroup for a child hermes (a job process) rather than
// a guard: its parent-death signal is SIGTERM, on which hermes stops as on
// any shutdown, ending its run and killing its own tool processes.
func NewGroupTerm(cmd *exec.Cmd) {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a, syscall.SIGTERM)
	cmd.SysProcAttr = a
}

// Detach makes cmd start in a session of its own with no parent-death
// signal: it goes on after hermes exits, as work handed off to finish in
// the background does (a one-shot chat's fact extraction).
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// Term sends SIGTERM to the process group led by pid.
func Term(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// Kill sends SIGKILL to the process group led by pid.
func Kill(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
