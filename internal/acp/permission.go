package acp

import (
	"context"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/safety"
)

// The permission options offered for a dangerous command, by id; each is
// one of hermes's approval answers.
var permissionOptions = []struct {
	id     acpsdk.PermissionOptionId
	name   string
	kind   acpsdk.PermissionOptionKind
	answer safety.Answer
}{
	{"once", "Allow once", acpsdk.PermissionOptionKindAllowOnce, safety.Once},
	{"session", "Allow for this session", acpsdk.PermissionOptionKindAllowAlways, safety.Session},
	{"always", "Always allow", acpsdk.PermissionOptionKindAllowAlways, safety.Always},
	{"deny", "Reject", acpsdk.PermissionOptionKindRejectOnce, safety.Deny},
}

// permissions asks the editor's user about a session's dangerous commands
// and its file writes outside the session's directory through
// session/request_permission. It is a safety.Prompter.
type permissions struct {
	conn      *acpsdk.AgentSideConnection
	sessionID string
	// calls finds the tool call that runs the command.
	calls *updater
}

// Prompt asks and returns the answer picked. A cancelled request (the
// user dismissed it, or the turn was cancelled) and an option hermes did
// not offer are denials.
func (p *permissions) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	offered := permissionOptions
	about := r.Command
	kind := acpsdk.ToolKindExecute
	title := fmt.Sprintf("Run `%s`? (%s)", r.Command, r.Verdict.Description)
	input := map[string]any{"command": r.Command, "dir": r.Dir, "rule": r.Verdict.Rule}
	var locs []acpsdk.ToolCallLocation
	if r.Path != "" {
		// A write outside the session's directory is allowed once or
		// rejected: an answer for the whole session would let every
		// later write go anywhere.
		offered = nil
		for _, o := range permissionOptions {
			if o.answer == safety.Once || o.answer == safety.Deny {
				offered = append(offered, o)
			}
		}
		about, kind = r.Path, acpsdk.ToolKindEdit
		title = fmt.Sprintf("Write %s, outside the project %s?", r.Path, r.Dir)
		input = map[string]any{"path": r.Path, "workdir": r.Dir, "rule": r.Verdict.Rule}
		locs = []acpsdk.ToolCallLocation{{Path: r.Path}}
	}
	opts := make([]acpsdk.PermissionOption, 0, len(offered))
	for _, o := range offered {
		opts = append(opts, acpsdk.PermissionOption{OptionId: o.id, Name: o.name, Kind: o.kind})
	}
	callID := p.calls.callFor(r.Command)
	if r.Path != "" {
		callID = p.calls.callForPath(r.Path)
	}
	if callID == "" {
		callID = "approval-" + about
	}
	resp, err := p.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(p.sessionID),
		Options:   opts,
		ToolCall: acpsdk.ToolCallUpdate{
			ToolCallId: acpsdk.ToolCallId(callID),
			Title:      &title,
			Kind:       &kind,
			RawInput:   input,
			Locations:  locs,
		},
	})
	if err != nil {
		return safety.Deny, err
	}
	sel := resp.Outcome.Selected
	if sel == nil {
		return safety.Deny, nil
	}
	for _, o := range offered {
		if o.id == sel.OptionId {
			return o.answer, nil
		}
	}
	return safety.Deny, nil
}
