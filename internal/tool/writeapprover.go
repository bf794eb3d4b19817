package tool

import "context"

// WriteApprover is an Approver that also judges the files a tool writes.
// File tools ask through it, when the invocation's approver has it, after
// the write guard allowed a path and before they change the file: a
// front that keeps a session to its directory (an editor's project) asks
// its user about a write elsewhere.
type WriteApprover interface {
	Approver
	// ApproveWrite returns nil when the file at path, absolute and
	// clean, may be written, or an error saying why not, which the tool
	// reports to the model with CodeDenied.
	ApproveWrite(ctx context.Context, path string) error
}
