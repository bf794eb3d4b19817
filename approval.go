package hermes

import (
	"context"
	"strings"

	"github.com/hermes-go/hermes/internal/safety"
)

// Approval is what hermes asks a program about: a dangerous command the
// model wants to run, a file it wants to write outside the working
// directory, or a call of a Tool made WithApproval.
type Approval struct {
	// Session is the session the turn runs in.
	Session string
	// Command is the shell command, or the Tool call's arguments (JSON).
	Command string
	// Path, when set, is the file to be written (absolute, links
	// resolved); Command is then empty.
	Path string
	// Tool, when set, is the tool whose call this is: a Tool made
	// WithApproval, or a tool declared in YAML with approval: always.
	Tool string
	// Dir is where the command starts, when known.
	Dir string
	// Reason says why hermes asks: the danger a command matched, or the
	// Tool's WithApproval text.
	Reason string
	// Rule names what a Session or Always answer allows from then on:
	// a dangerous-command rule, or "tool:NAME".
	Rule string
}

// Decision is an answer to an Approval.
type Decision int

// The decisions. The zero Decision denies, so a callback that forgets to
// answer approves nothing.
const (
	// Deny refuses; the model is told so and the turn goes on.
	Deny Decision = iota
	// Once allows this command or call, this time.
	Once
	// Session allows it and everything its Rule covers for the rest of
	// the session.
	Session
	// Always allows its Rule from now on: for an Agent with a home,
	// kept in config.yaml's command_allowlist; InMemory, until Close.
	Always
)

// ApproveFunc decides an Approval. It runs while the turn waits, in the
// turn's goroutine or a tool's; it must return when ctx is done (the
// approval then counts as denied, as after approvals.timeout).
type ApproveFunc func(ctx context.Context, a Approval) Decision

// prompter asks f as the safety policy's Prompter.
type prompter struct{ f ApproveFunc }

func (p prompter) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	a := Approval{Session: r.SessionID, Command: r.Command, Path: r.Path, Dir: r.Dir,
		Reason: r.Verdict.Description, Rule: r.Verdict.Rule}
	if name, ok := strings.CutPrefix(a.Rule, "tool:"); ok {
		a.Tool = name
	}
	switch p.f(ctx, a) {
	case Once:
		return safety.Once, nil
	case Session:
		return safety.Session, nil
	case Always:
		return safety.Always, nil
	}
	return safety.Deny, nil
}

// asker is who a turn's approvals go to: f, or nobody. Writes outside
// workdir are asked about too, as for an editor's session: a program
// embedding hermes gives it a directory to work in.
func asker(f ApproveFunc, workdir string) safety.Asker {
	a := safety.Asker{WriteRoot: workdir}
	if f != nil {
		a.Prompter = prompter{f}
	}
	return a
}
