package safety

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// Default waits, used when the Policy leaves them zero.
const (
	DefaultTimeout      = 60 * time.Second
	DefaultJudgeTimeout = 30 * time.Second
)

// Policy decides whether a shell command may run. The zero value asks
// about nothing it cannot ask: it refuses hardline commands and, with no
// Prompter in the Asker, denies dangerous ones.
//
// The order of the checks is fixed, and each one is a floor for those
// after it:
//
//  1. a command matching an approvals.deny pattern is refused, always;
//  2. a hardline command is refused, always;
//  3. a safe command runs;
//  4. a dangerous command runs when every rule it matches is allowed —
//     by Allowlist, by an earlier Always answer, or for its session by an
//     earlier Session answer — or when Allowlist has a glob matching it;
//  5. with the Asker's Yolo or ModeOff (the Asker's Mode, else the
//     Policy's) it runs;
//  6. in ModeSmart the Judge decides, unless it escalates or fails;
//  7. a person is asked through the Asker's Prompter, for at most Timeout;
//  8. when nobody can be asked, the Asker's NonInteractive, else the
//     Policy's, decides (deny by default).
//
// The Policy is one per process and keeps what was granted; who can be
// asked differs from one front to another (a terminal, a chat, a
// scheduled job), so each turn brings its Asker (For).
//
// A Policy is safe for concurrent use once configured; its fields must not
// change afterwards, and it must not be copied after first use.
type Policy struct {
	Mode Mode
	// Deny holds command globs (approvals.deny) refused even under Yolo.
	// A pattern is matched against the whole normalized command and
	// against each simple command in it, with and without wrappers such as
	// sudo, so "git push*" also refuses "cd repo && sudo git push".
	Deny []string
	// Allowlist holds config's command_allowlist: rule keys
	// ("recursive_delete") or descriptions, whose rules are always
	// allowed, and command globs, which allow a whole command they match.
	// In an allowlist glob, * and ? do not match ; & | ` $ ( ) < > or a
	// newline, so "rm -rf build*" cannot allow "rm -rf build; curl x | sh".
	Allowlist []string
	// NonInteractive is what happens to a dangerous command when nobody
	// can be asked: NonInteractiveDeny (the default) or
	// NonInteractiveAllow.
	NonInteractive string
	// Timeout bounds the wait for a person's answer; DefaultTimeout when
	// zero. No answer in time is a denial.
	Timeout time.Duration
	// JudgeTimeout bounds the Judge's review; DefaultJudgeTimeout when
	// zero. A judge that takes longer escalates.
	JudgeTimeout time.Duration
	// Judge reviews dangerous commands in ModeSmart.
	Judge Judge
	// OnAlways persists an Always answer; the caller appends the rule to
	// command_allowlist in config.yaml. An error is logged, and the rule
	// stays allowed for the life of the process.
	OnAlways func(rule string) error
	Logger   *slog.Logger
	// HermesHome is hermes's own directory ($HERMES_HOME, with the
	// profile applied): commands that change files there need approval,
	// since config.yaml, .env, state.db, memories, skills and tools change
	// only through the tools made for them. Empty means $HERMES_HOME from
	// the environment, else ~/.hermes (which is protected whatever this
	// says).
	HermesHome string
	// Home is the user's home directory, which commands know as ~. Empty
	// means $HOME from the environment.
	Home string

	mu       sync.Mutex
	sessions map[string]map[string]bool // session → rules granted for it
	always   map[string]bool            // rules granted by Always answers
}

// Validate reports the first setting that is not accepted, naming the
// setting, its value and what is accepted.
func (p *Policy) Validate() error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	switch p.NonInteractive {
	case "", NonInteractiveDeny, NonInteractiveAllow:
	default:
		return fmt.Errorf("safety: approvals.non_interactive %q is not accepted; use one of deny, allow", p.NonInteractive)
	}
	if p.Timeout < 0 {
		return fmt.Errorf("safety: approvals.timeout %s is not accepted; use a positive duration (0 means %s)", p.Timeout, DefaultTimeout)
	}
	return nil
}

// Asker is how one front decides the dangerous commands the Policy's own
// rules leave open: a person through a Prompter (a terminal, chat
// buttons), or nobody. It is a field of a turn's input, so one Policy
// serves every front of a process.
type Asker struct {
	// Prompter asks a person; nil means nobody can be asked.
	Prompter Prompter
	// Yolo runs dangerous commands without asking (--yolo); never
	// hardline ones or Deny patterns.
	Yolo bool
	// NonInteractive, when set, replaces the Policy's NonInteractive
	// (approvals.cron_mode for scheduled jobs).
	NonInteractive string
	// Mode, when set, replaces the Policy's Mode for this front's
	// commands: an editor's user picks how their session approves, which
	// may be stricter or looser than approvals.mode. Hardline commands and
	// Deny patterns are refused in every mode.
	Mode Mode
	// WriteRoot, when set, is the directory the session's file tools
	// write in without asking: a write whose path, links resolved, lies
	// elsewhere asks the Prompter (Request.Path) like a dangerous
	// command. Empty leaves writes to the write guard alone.
	WriteRoot string
}

// modeFor is the approval mode that decides for a: the Asker's own, else
// approvals.mode.
func (p *Policy) modeFor(a Asker) Mode {
	if a.Mode != "" {
		return a.Mode
	}
	return p.Mode
}

// SessionApprover approves commands for one session. It has the method
// set of tool.Approver.
type SessionApprover struct {
	policy    *Policy
	sessionID string
	asker     Asker
}

// For returns the approver of one session's commands, asking as a says.
func (p *Policy) For(sessionID string, a Asker) SessionApprover {
	return SessionApprover{policy: p, sessionID: sessionID, asker: a}
}

// ApproveCommand returns nil when command may run in the session, and a
// *DeniedError otherwise.
func (a SessionApprover) ApproveCommand(ctx context.Context, command string) error {
	return a.policy.Check(ctx, a.sessionID, a.asker, command)
}

// ApproveCommandIn is ApproveCommand for a command that starts in dir,
// the session's current directory: its relative paths are judged as the
// paths they name there.
func (a SessionApprover) ApproveCommandIn(ctx context.Context, dir, command string) error {
	return a.policy.CheckIn(ctx, a.sessionID, a.asker, dir, command)
}

// ApproveShellCommand is ApproveCommandIn for a command run by a
// persistent shell that holds st from the session's earlier commands:
// "rm -rf $D" is judged knowing that an earlier call set D=~.
func (a SessionApprover) ApproveShellCommand(ctx context.Context, dir string, st shell.State, command string) error {
	return a.policy.CheckState(ctx, a.sessionID, a.asker, dir, st, command)
}

// EndSession forgets what was granted for a session.
func (p *Policy) EndSession(sessionID string) {
	p.mu.Lock()
	delete(p.sessions, sessionID)
	p.mu.Unlock()
}

// Check returns nil when command may run in the session, and a
// *DeniedError saying why not otherwise. It may block while a person
// (through a) or the judge is asked; cancelling ctx ends the wait with a
// denial. Relative paths are judged only against the directories the
// command itself changes into; CheckIn knows where it starts.
func (p *Policy) Check(ctx context.Context, sessionID string, a Asker, command string) error {
	return p.CheckIn(ctx, sessionID, a, "", command)
}

// CheckIn is Check for a command that starts in dir (absolute; "" when
// unknown): after an earlier cd ~, "rm -rf ./*" deletes the home
// directory, and is refused as such.
func (p *Policy) CheckIn(ctx context.Context, sessionID string, a Asker, dir, command string) error {
	return p.CheckState(ctx, sessionID, a, dir, shell.State{}, command)
}

// CheckState is CheckIn for a command run by a persistent shell that
// already holds st (see shell.State): the variables and functions of the
// session's earlier commands.
func (p *Policy) CheckState(ctx context.Context, sessionID string, a Asker, dir string, st shell.State, command string) error {
	o := p.options(dir)
	o.State = st
	r := o.Inspect(command)
	v := shell.Verdict{Level: shell.Safe}
	if len(r.Findings) > 0 {
		v = r.Findings[0]
	}
	log := p.logger().With("session", sessionID, "verdict", v.Level, "rule", v.Rule)
	deny := func(v shell.Verdict, reason string, err error) error {
		// The command itself is not logged: it may carry secrets.
		log.Warn("safety: command denied", "reason", reason)
		note(ctx, "denied", reason)
		return &DeniedError{Command: command, Verdict: v, Reason: reason, Err: err}
	}
	if pattern, ok := p.denyPattern(r.Parts); ok {
		return deny(v, fmt.Sprintf("it matches the approvals.deny pattern %q", pattern), nil)
	}
	if v.Level == shell.Hardline {
		return deny(v, "hermes never runs this command ("+v.Description+")", nil)
	}
	if v.IsSafe() {
		note(ctx, "safe", "")
		return nil
	}
	if p.allowGlob(r.Parts[0]) && len(p.ungranted(sessionID, r.Findings)) > 0 {
		log.Info("safety: dangerous command allowed by command_allowlist")
		note(ctx, "allowlist", "")
		return nil
	}
	return p.decide(ctx, Request{SessionID: sessionID, Command: command, Dir: dir}, a, r.Findings, log, deny)
}

// options returns what the analysis needs to know besides the command.
func (p *Policy) options(dir string) shell.Options {
	o := shell.Options{Dir: dir, Home: p.Home, HermesHome: p.HermesHome}
	if o.Home == "" {
		o.Home = os.Getenv("HOME")
	}
	if o.HermesHome == "" {
		o.HermesHome = os.Getenv("HERMES_HOME")
	}
	return o
}

// decide runs steps 4 to 8 of the Policy for dangerous findings; req
// says what is asked about, and decide fills in its verdicts.
func (p *Policy) decide(ctx context.Context, req Request, a Asker, findings []shell.Verdict, log *slog.Logger, deny denyFunc) error {
	sessionID := req.SessionID
	pending := p.ungranted(sessionID, findings)
	switch {
	case len(pending) == 0:
		log.Info("safety: dangerous command allowed by an earlier approval")
		note(ctx, "earlier", "")
		return nil
	case a.Yolo:
		log.Info("safety: dangerous command allowed by --yolo")
		note(ctx, "yolo", "")
		return nil
	}
	req.Verdict, req.Findings = pending[0], pending
	configured := p.modeFor(a)
	switch mode, err := ParseMode(string(configured)); {
	case err != nil:
		return deny(req.Verdict, fmt.Sprintf("the approval policy is misconfigured: approvals.mode %q is not accepted (use manual, smart or off)", configured), err)
	case mode == ModeOff:
		log.Info("safety: dangerous command allowed: approvals are off")
		note(ctx, "off", "")
		return nil
	case mode == ModeSmart:
		switch j := p.judge(ctx, req, log); j {
		case JudgeApprove:
			log.Info("safety: dangerous command approved by the judge")
			note(ctx, "judge", "")
			return nil
		case JudgeDeny:
			return deny(req.Verdict, "the safety reviewer judged it too risky ("+req.Verdict.Description+")", nil)
		}
	}
	return p.ask(ctx, a, req, deny)
}

func (p *Policy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}
