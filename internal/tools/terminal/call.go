package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// maxCommandBytes bounds the command text: Linux refuses a single
// argument longer than 128 KiB, and a script that long belongs in a file.
const maxCommandBytes = 100_000

// Result is the data of a terminal call, also carried in the error of a
// timed-out one. A non-zero exit is still an ok call: the model reads
// ExitCode, as with Hermes Agent.
type Result struct {
	// Output is stdout and stderr interleaved as the command wrote them,
	// possibly cut to its tail with a first line saying how much was cut.
	Output string `json:"output"`
	// ExitCode is the shell's exit status; 128+N when signal N killed it,
	// 124 when hermes killed it on timeout.
	ExitCode int `json:"exit_code"`
	// Cwd is the directory the command ended in (or started in, if it
	// left the shell early); the session's next command starts there
	// unless this call gave a workdir.
	Cwd string `json:"cwd"`
	// Truncated is true when Output was cut.
	Truncated bool `json:"truncated,omitempty"`
	// Note tells the model about something it did not ask for, such as
	// running in another directory because the last one was deleted.
	Note string `json:"note,omitempty"`
}

// args are the call's arguments, already checked against the schema.
type args struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
	Workdir string `json:"workdir"`
	// Background starts the command and returns at once; the process
	// tool manages it from then on.
	Background bool `json:"background"`
}

// StopCause says why a run ended.
type StopCause int

// The reasons a run ends.
const (
	Exited StopCause = iota
	TimedOut
	Interrupted
)

// RunResult is what one shell run produced.
type RunResult struct {
	Output   Output
	ExitCode int
	Cwd      string // the shell's final directory, "" when it did not say
	Cause    StopCause
	Start    string // where the command started, when the backend found out itself ("" = the Place's Dir)
	Note     string // replaces the Place's Note when set
}

// Call runs one command. The order matters: arguments and directories are
// checked before approval, so no one is asked to approve a command that
// cannot run, and nothing runs unless approval was given.
func (t *Terminal) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	if err := t.Available(); err != nil {
		return nil, &tool.Error{Code: tool.CodeUpstreamUnavailable, Message: err.Error()}
	}
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object with command, background, timeout and workdir: %v", err)
	}
	timeout, err := t.checkArgs(a)
	if err != nil {
		return nil, err
	}
	inv := tool.InvocationFrom(ctx)
	at, err := t.backend.Where(inv, a.Workdir)
	if err != nil {
		return nil, err
	}
	dir := at.Dir

	if a.Background {
		if err := t.procs.checkRoom(inv.SessionID); err != nil {
			return nil, err
		}
	}

	var ls *lease
	var runner Runner
	if !a.Background {
		runner = t.runnerFor(ctx, inv)
	}
	if !a.Background && runner == nil {
		if ls, err = t.sessionShell(ctx, inv); err != nil {
			return nil, err
		}
		if ls != nil {
			defer ls.release()
		}
	}

	var st *shell.State
	switch {
	case runner != nil:
		s := runner.State()
		st = &s
	case ls != nil:
		s := ls.state()
		st = &s
	}
	if err := t.approve(ctx, inv, dir, st, a.Command); err != nil {
		return nil, err
	}
	if err := t.keepWrites(inv, dir, st, a.Command); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("terminal: interrupted before the command ran: %w", err)
	}
	if a.Background {
		return t.startBackground(ctx, inv, a.Command, at)
	}

	cmd := Command{Text: a.Command, Timeout: timeout, MaxOutputBytes: t.opt.MaxOutputBytes, MaxOutputLines: t.opt.MaxOutputLines}
	var res RunResult
	switch {
	case runner != nil:
		res, err = t.runOn(ctx, runner, cmd, at)
	case ls != nil:
		res, err = ls.run(ctx, cmd, at)
	default:
		res, err = t.backend.Run(ctx, cmd, at)
	}
	if err != nil {
		if _, ok := tool.AsError(err); ok {
			return nil, err
		}
		if dir == "" {
			dir = "the login directory"
		}
		return nil, fmt.Errorf("terminal: starting %s in %s: %w", t.backend.Name(), dir, err)
	}
	if res.Start != "" {
		dir = res.Start
	}
	note := at.Note
	if res.Note != "" {
		note = res.Note
	}
	data := Result{
		Output:    res.Output.Text,
		ExitCode:  res.ExitCode,
		Cwd:       dir,
		Truncated: res.Output.Truncated,
		Note:      note,
	}
	if res.Cwd != "" {
		data.Cwd = res.Cwd
	}
	switch res.Cause {
	case Interrupted:
		return nil, fmt.Errorf("terminal: command interrupted and its processes killed: %w", ctx.Err())
	case TimedOut:
		return nil, &tool.Error{Code: tool.CodeTimeout, Message: t.timeoutMessage(timeout), Data: data}
	}
	if a.Workdir == "" && res.Cwd != "" {
		t.dirs.set(inv.SessionID, at.Base, res.Cwd)
	}
	return data, nil
}

// timeoutMessage tells the model what happened and what to try instead.
func (t *Terminal) timeoutMessage(timeout time.Duration) string {
	sec, maxSec := int(timeout/time.Second), int(t.opt.MaxTimeout/time.Second)
	hint := "narrow the command (fewer files, a smaller test selection) or split it into steps that each finish within the limit"
	if sec < maxSec {
		hint = fmt.Sprintf("raise timeout (at most %d), %s", maxSec, hint)
	}
	return fmt.Sprintf("command timed out after %ds and was killed with everything it started; "+
		"the output so far is in data. To finish it, %s", sec, hint)
}

// checkArgs validates what the schema cannot fully say and returns the
// timeout to use.
func (t *Terminal) checkArgs(a args) (time.Duration, error) {
	switch {
	case strings.TrimSpace(a.Command) == "":
		return 0, tool.Errorf(tool.CodeInvalidArguments, "command is empty; give the bash command to run")
	case len(a.Command) > maxCommandBytes:
		return 0, tool.Errorf(tool.CodeInvalidArguments, "command is %d bytes; at most %d are accepted: write a longer script to a file and run the file", len(a.Command), maxCommandBytes)
	case strings.ContainsRune(a.Command, 0):
		return 0, tool.Errorf(tool.CodeInvalidArguments, "command contains a NUL byte, which a shell command cannot hold")
	}
	maxSec := int(t.opt.MaxTimeout / time.Second)
	switch {
	case a.Timeout == 0:
		return t.opt.DefaultTimeout, nil
	case a.Timeout < 0 || a.Timeout > maxSec:
		return 0, tool.Errorf(tool.CodeInvalidArguments, "timeout %d is out of range; give seconds from 1 to %d, or omit it for the default %d", a.Timeout, maxSec, int(t.opt.DefaultTimeout/time.Second))
	}
	return time.Duration(a.Timeout) * time.Second, nil
}

// sessionShell returns the session's shell, held for one command, when
// its commands run in one: the approver can judge a command with what the
// shell holds. It returns nil when the command is to run in a bash of its
// own.
func (t *Terminal) sessionShell(ctx context.Context, inv tool.Invocation) (*lease, error) {
	if t.shells == nil {
		return nil, nil
	}
	if _, ok := t.approverOf(inv).(tool.ShellApprover); !ok {
		return nil, nil
	}
	ls, err := t.shells.acquire(ctx, inv.SessionID)
	if err != nil {
		return nil, fmt.Errorf("terminal: interrupted while waiting for the session's shell: %w", err)
	}
	return ls, nil
}

// approverOf returns the invocation's Approver, or the Fallback.
func (t *Terminal) approverOf(inv tool.Invocation) tool.Approver {
	if inv.Approver != nil {
		return inv.Approver
	}
	return t.opt.Fallback
}

// approve asks the invocation's Approver, or the Fallback, whether the
// command may run in dir, the directory it starts in ("" when the backend
// does not know it yet), in a shell holding st when the command runs in
// one that persists (the session's shell, or a Runner's). With neither
// approver there is no one to ask, and the command is denied.
func (t *Terminal) approve(ctx context.Context, inv tool.Invocation, dir string, st *shell.State, command string) error {
	ap := t.approverOf(inv)
	if ap == nil {
		return &tool.Error{Code: tool.CodeDenied, Message: "no one can approve shell commands in this session, so none may run"}
	}
	var err error
	sa, isShell := ap.(tool.ShellApprover)
	da, isDir := ap.(tool.DirApprover)
	switch {
	case st != nil && isShell:
		err = sa.ApproveShellCommand(ctx, dir, *st, command)
	case isDir && dir != "":
		err = da.ApproveCommandIn(ctx, dir, command)
	default:
		err = ap.ApproveCommand(ctx, command)
	}
	if err != nil {
		if ctx.Err() != nil {
			// The turn was cancelled while someone was being asked.
			return fmt.Errorf("terminal: interrupted while awaiting approval: %w", ctx.Err())
		}
		return &tool.Error{Code: tool.CodeDenied, Message: err.Error()}
	}
	return nil
}
