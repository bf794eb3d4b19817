//go:build !unix

package declared

import "os/exec"

// ownGroup is a no-op where process groups do not exist; exec kills the
// program itself when the context ends.
func ownGroup(cmd *exec.Cmd) {}

// killGroup has nothing more to kill without process groups.
func killGroup(cmd *exec.Cmd) {}
