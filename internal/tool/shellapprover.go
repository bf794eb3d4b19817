package tool

import (
	"context"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// ShellApprover is a DirApprover that also judges a command knowing what
// the persistent shell it runs in already holds. A tool that keeps one
// shell per session (terminal) runs a command in it only when the
// invocation's approver is a ShellApprover: after D=~ in an earlier call,
// "rm -rf $D" deletes the home directory, which only the shell's state
// shows.
type ShellApprover interface {
	DirApprover
	// ApproveShellCommand is ApproveCommandIn for a command that starts
	// in dir, an absolute path, in a shell holding st.
	ApproveShellCommand(ctx context.Context, dir string, st shell.State, command string) error
}
