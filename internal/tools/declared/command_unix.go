//go:build unix

package declared

import (
	"context"
	"os/exec"
	"syscall"

	"github.com/hermes-go/hermes/internal/procgroup"
)

// groupCommand returns the command that runs argv in a process group of
// its own, led by a procgroup guard shell: cancelling the call stops
// everything the program started (SIGTERM to the group when the context
// ends, then exec waits killGrace before SIGKILL), and if hermes dies the
// guard kills the group.
func groupCommand(ctx context.Context, argv []string) *exec.Cmd {
	g := procgroup.GuardArgv(argv)
	cmd := exec.CommandContext(ctx, g[0], g[1:]...)
	procgroup.NewGroup(cmd)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	return cmd
}

// killGroup sends SIGKILL to what is left of a cancelled command's
// process group: children that ignored SIGTERM or outlived the program.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		procgroup.Kill(cmd.Process.Pid)
	}
}
