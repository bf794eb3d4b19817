package acp

import (
	"context"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/safety"
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
// through session/request_permission. It is a safety.Prompter.
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
	opts := make([]acpsdk.PermissionOption, 0, len(permissionOptions))
	for _, o := range permissionOptions {
		opts = append(opts, acpsdk.PermissionOption{OptionId: o.id, Name: o.name, Kind: o.kind})
	}
	callID := p.calls.callFor(r.Command)
	if callID == "" {
		callID = "approval-" + r.Command
	}
	kind := acpsdk.ToolKindExecute
	title := fmt.Sprintf("Run `%s`? (%s)", r.Command, r.Verdict.Description)
	resp, err := p.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(p.sessionID),
		Options:   opts,
		ToolCall: acpsdk.ToolCallUpdate{
			ToolCallId: acpsdk.ToolCallId(callID),
			Title:      &title,
			Kind:       &kind,
			RawInput:   map[string]any{"command": r.Command, "dir": r.Dir, "rule": r.Verdict.Rule},
		},
	})
	if err != nil {
		return safety.Deny, err
	}
	sel := resp.Outcome.Selected
	if sel == nil {
		return safety.Deny, nil
	}
	for _, o := range permissionOptions {
		if o.id == sel.OptionId {
			return o.answer, nil
		}
	}
	return safety.Deny, nil
}
