//go:build !unix

package procgroup

import "os/exec"

// NewSession does nothing where there are no sessions or process groups.
func NewSession(*exec.Cmd) {}

// NewGroup does nothing where there are no process groups.
func NewGroup(*exec.Cmd) {}

// NewGroupTerm does nothing where there are no process groups.
func NewGroupTerm(*exec.Cmd) {}

// Detach does nothing where there are no sessions: the child is then
// started as any other.
func Detach(*exec.Cmd) {}

// Term does nothing where there are no process groups.
func Term(int) {}

// Kill does nothing where there are no process groups.
func Kill(int) {}
