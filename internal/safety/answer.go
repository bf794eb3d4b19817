package safety

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// Mode is how dangerous commands are approved (approvals.mode).
type Mode string

// The approval modes.
const (
	// ModeManual asks a person about every dangerous command. It is the
	// default: the empty Mode means manual.
	ModeManual Mode = "manual"
	// ModeSmart asks the Judge first and a person only when the judge is
	// unsure.
	ModeSmart Mode = "smart"
	// ModeOff runs dangerous commands without asking. Hardline commands
	// and approvals.deny patterns are still refused.
	ModeOff Mode = "off"
)

// ParseMode returns the mode s names, or an error naming s and what is
// accepted.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeManual, ModeSmart, ModeOff:
		return m, nil
	case "":
		return ModeManual, nil
	}
	return "", fmt.Errorf("safety: approvals.mode %q is not accepted; use one of manual, smart, off", s)
}

// What to do with a dangerous command when no person can be asked
// (Policy.NonInteractive).
const (
	NonInteractiveDeny  = "deny"
	NonInteractiveAllow = "allow"
)

// Answer is a person's reply to an approval prompt.
type Answer int

// The answers. The zero Answer is none of them and counts as a denial, so
// a Prompter that forgets to set one does not approve anything.
const (
	// Once runs this command, this time.
	Once Answer = iota + 1
	// Session runs it and allows its rules for the rest of the session.
	Session
	// Always runs it and allows its rules from now on; Policy.OnAlways
	// is told so that the choice outlives the process.
	Always
	// Deny refuses the command.
	Deny
)

// String returns the answer's name: once, session, always, deny.
func (a Answer) String() string {
	switch a {
	case Once:
		return "once"
	case Session:
		return "session"
	case Always:
		return "always"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Answer(%d)", int(a))
}

// ParseAnswer reads an answer typed by a person or sent by a chat button:
// once, session, always or deny, or their first letters (o, s, a, d), in
// any case; "yes"/"y" mean once and "no"/"n" deny.
func ParseAnswer(s string) (Answer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "once", "o", "yes", "y":
		return Once, nil
	case "session", "s":
		return Session, nil
	case "always", "a":
		return Always, nil
	case "deny", "d", "no", "n":
		return Deny, nil
	}
	return 0, fmt.Errorf("safety: answer %q is not accepted; use one of once, session, always, deny", s)
}

// Request is what a Prompter or Judge is asked about. A Prompter shows
// the command through Display, never raw: the command is the model's
// text, and may hold escape sequences that redraw the prompt.
type Request struct {
	SessionID string
	Command   string
	// Path, when set, makes this a request to write the file at Path, an
	// absolute path with its links resolved, outside Asker.WriteRoot;
	// Command is then empty and Dir is the root.
	Path string
	// Dir is the directory the command starts in, when known.
	Dir string
	// Verdict is the first dangerous rule the command matches that is not
	// yet allowed; it is what a prompt should show.
	Verdict shell.Verdict
	// Findings lists every such rule. A Session or Always answer allows
	// all of them.
	Findings []shell.Verdict
}

// Prompter asks a person whether a dangerous command may run. Front-ends
// implement it: the terminal asks on the TTY, chat gateways send buttons.
// Prompt must return when ctx is done; the policy gives up on it then
// anyway and denies the command as timed out.
type Prompter interface {
	Prompt(ctx context.Context, r Request) (Answer, error)
}

// Judgement is a Judge's decision.
type Judgement string

// The judgements.
const (
	// JudgeApprove runs the command without asking anyone.
	JudgeApprove Judgement = "APPROVE"
	// JudgeDeny refuses it.
	JudgeDeny Judgement = "DENY"
	// JudgeEscalate hands the decision to a person.
	JudgeEscalate Judgement = "ESCALATE"
)

// Judge is smart mode's reviewer, usually an auxiliary model (see
// NewModelJudge). It must treat the command as untrusted data: the command
// was written by the model whose action is being reviewed.
type Judge interface {
	Judge(ctx context.Context, r Request) (Judgement, error)
}

// DeniedError is the error Policy.Check returns for a command that may not
// run. Its message is written for the model: what happened, and that it
// should not retry the same command.
type DeniedError struct {
	Command string
	// Verdict is the rule that needed approval (or refused the command);
	// safe when an approvals.deny pattern refused a harmless command.
	Verdict shell.Verdict
	// Reason says why, in a sentence fragment: "the user denied it".
	Reason string
	// Err is the underlying error, if any: the context's when the wait
	// was cancelled, the Prompter's when asking failed.
	Err error
}

// Error returns the message the model sees.
func (e *DeniedError) Error() string {
	if e.Verdict.Level == shell.Hardline {
		return "command refused: " + e.Reason + ". Do not retry it or a variation of it; if it is really needed, ask the user to run it themselves."
	}
	return "command denied: " + e.Reason + ". Do not retry the same command; ask the user, or choose a safer command."
}

// Unwrap returns the underlying error.
func (e *DeniedError) Unwrap() error { return e.Err }
