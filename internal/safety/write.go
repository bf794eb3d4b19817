package safety

import (
	"context"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/subdir"
)

// RuleWriteOutside is the rule of a file write outside Asker.WriteRoot;
// granting it for a session (a Session answer, or command_allowlist)
// lets the session's writes go anywhere the write guard allows.
const RuleWriteOutside = "write_outside_workdir"

// writeOutside is the verdict a write outside the root is asked about.
var writeOutside = shell.Verdict{Level: shell.Dangerous, Rule: RuleWriteOutside, Description: "writes a file outside the working directory"}

// WriteDeniedError is the error CheckWrite returns; its message tells the
// model the write was refused and what to do instead.
type WriteDeniedError struct {
	// Path is the file that was not written, links resolved.
	Path string
	// Root is the directory writes are confined to.
	Root string
	// Reason says why, in a sentence fragment: "the user denied it".
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the message the model sees.
func (e *WriteDeniedError) Error() string {
	return "writing " + e.Path + " denied: " + e.Reason + ". It is outside the working directory " + e.Root +
		"; do not retry it. Write inside " + e.Root + " instead, or ask the user to make this change."
}

// Unwrap returns the underlying error.
func (e *WriteDeniedError) Unwrap() error { return e.Err }

// CheckWrite returns nil when a file tool may write path (absolute) in
// the session, and a *WriteDeniedError otherwise. Writes are asked about
// only when a sets a WriteRoot and path, with the symbolic links of it
// and of the root resolved, lies outside it: "../x", an absolute path
// elsewhere and a link inside the root that leads out all do. The write
// guard, which the tools consult first, still refuses its paths without
// asking. --yolo, approvals.mode off and an earlier Session answer allow
// such writes as they allow dangerous commands.
func (p *Policy) CheckWrite(ctx context.Context, sessionID string, a Asker, path string) error {
	if a.WriteRoot == "" {
		return nil
	}
	root := writeguard.Resolve(filepath.Clean(a.WriteRoot))
	real := writeguard.Resolve(filepath.Clean(path))
	if subdir.Within(root, real) {
		return nil
	}
	log := p.logger().With("session", sessionID, "rule", RuleWriteOutside)
	deny := func(_ shell.Verdict, reason string, err error) error {
		log.Warn("safety: file write denied", "reason", reason)
		return &WriteDeniedError{Path: real, Root: root, Reason: reason, Err: err}
	}
	switch mode, err := ParseMode(string(p.modeFor(a))); {
	case len(p.ungranted(sessionID, []shell.Verdict{writeOutside})) == 0:
		log.Info("safety: file write outside the working directory allowed by an earlier approval")
		return nil
	case a.Yolo:
		log.Info("safety: file write outside the working directory allowed by --yolo")
		return nil
	case err == nil && mode == ModeOff:
		log.Info("safety: file write outside the working directory allowed: approvals are off")
		return nil
	}
	// The judge reviews commands; a write is put to a person even in
	// smart mode.
	req := Request{SessionID: sessionID, Path: real, Dir: root, Verdict: writeOutside, Findings: []shell.Verdict{writeOutside}}
	return p.ask(ctx, a, req, deny)
}

// ApproveWrite returns nil when a file tool may write path in the
// session, and a *WriteDeniedError otherwise (see Policy.CheckWrite). It
// gives SessionApprover the method set of tool.WriteApprover.
func (a SessionApprover) ApproveWrite(ctx context.Context, path string) error {
	return a.policy.CheckWrite(ctx, a.sessionID, a.asker, path)
}
