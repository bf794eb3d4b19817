//go:build !unix

package declared

import (
	"context"
	"os/exec"
)

// groupCommand runs argv itself where process groups do not exist; exec
// kills the program when the context ends.
func groupCommand(ctx context.Context, argv []string) *exec.Cmd {
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
}

// killGroup has nothing more to kill without process groups.
func killGroup(cmd *exec.Cmd) {}
