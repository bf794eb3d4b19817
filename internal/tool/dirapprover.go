package tool

import "context"

// DirApprover is an Approver that also judges a command knowing the
// directory it starts in. A tool whose working directory persists from
// one call to the next (terminal) asks through it when the invocation's
// approver has it: after cd ~ in an earlier call, "rm -rf ./*" deletes the
// home directory, which only the directory shows.
type DirApprover interface {
	Approver
	// ApproveCommandIn is ApproveCommand for a command that starts in
	// dir, an absolute path.
	ApproveCommandIn(ctx context.Context, dir, command string) error
}
