package terminal

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// Runner runs a session's foreground commands in a terminal the front of
// the turn offers, an editor's over ACP, instead of the session's own
// shell, so the user watches them run where they work. A front sets it on
// the turn's context with WithRunner; the terminal uses it for calls on
// the local machine (not with a Backend), after the approver allowed the
// command knowing State (an approver that cannot is never given such a
// command; it runs as without a Runner). Background commands stay on hermes's own
// processes, which the process tool manages.
type Runner interface {
	// State is what the commands run so far left for the next one (the
	// variables they exported), for the approver.
	State() shell.State
	// Run runs the command in its own terminal, starting in Dir, and
	// kills it when Timeout passes or ctx is done.
	Run(ctx context.Context, cmd RunnerCommand) (Ran, error)
}

// RunnerCommand is a foreground command for a Runner.
type RunnerCommand struct {
	Command
	// Dir is the absolute directory it starts in.
	Dir string
	// Hidden reports the variables the command must not see: hermes's
	// secrets, which the runner's environment may hold as well.
	Hidden func(name string) bool
}

// Ran is what a Runner's command did.
type Ran struct {
	// Output is what the command printed; when Truncated, the runner kept
	// only its last MaxOutputBytes bytes.
	Output    string
	Truncated bool
	// ExitCode is the command's status, 128+N when signal N ended it.
	ExitCode int
	// Cwd is the directory it ended in, "" when it did not say (it left
	// the shell early, or was killed).
	Cwd   string
	Cause StopCause
	// Note tells the model something it did not ask for, such as what
	// carries over to the next command there.
	Note string
}

type runnerKey struct{}

// WithRunner returns ctx carrying r for the terminal calls under it.
func WithRunner(ctx context.Context, r Runner) context.Context {
	return context.WithValue(ctx, runnerKey{}, r)
}

// runnerFor returns the runner in ctx when this terminal runs commands on
// the local machine and the invocation's approver judges a command
// knowing what the runner's shell holds, as for the session's own shell;
// otherwise nil.
func (t *Terminal) runnerFor(ctx context.Context, inv tool.Invocation) Runner {
	if t.opt.Backend != nil {
		return nil
	}
	if _, ok := t.approverOf(inv).(tool.ShellApprover); !ok {
		return nil
	}
	r, _ := ctx.Value(runnerKey{}).(Runner)
	return r
}

// runOn runs cmd at p through r and shapes what it did as a local run:
// the output is cut to the line and byte caps with the same notice.
func (t *Terminal) runOn(ctx context.Context, r Runner, cmd Command, p Place) (RunResult, error) {
	ran, err := r.Run(ctx, RunnerCommand{Command: cmd, Dir: p.Dir, Hidden: t.scrubbed})
	if err != nil {
		return RunResult{}, err
	}
	out := runnerOutput(ran, cmd.MaxOutputBytes, cmd.MaxOutputLines)
	note := ran.Note
	if p.Note != "" && note != "" {
		note = joinNotes([]string{p.Note, note})
	}
	return RunResult{Output: out, ExitCode: ran.ExitCode, Cwd: ran.Cwd, Cause: ran.Cause, Note: note}, nil
}

// runnerOutput cuts what a runner's command printed to the byte and line
// caps, with the usual notice; when the runner kept only the tail of the
// output, how much came before is unknown, and the notice says so.
func runnerOutput(ran Ran, maxBytes, maxLines int) Output {
	c := NewCapture(maxBytes)
	_, _ = c.Write([]byte(ran.Output))
	out := c.Snapshot(maxLines)
	if !ran.Truncated {
		return out
	}
	if out.Truncated {
		_, out.Text, _ = strings.Cut(out.Text, "\n")
	}
	lines := strings.Count(out.Text, "\n")
	if out.Text != "" && !strings.HasSuffix(out.Text, "\n") {
		lines++
	}
	return Output{Text: fmt.Sprintf("[output truncated: showing the last %d lines (%s); the terminal that ran it kept only the end "+
		"of the output; narrow the command or redirect its output to a file and read the parts you need]\n",
		lines, sizeString(int64(len(out.Text)))) + out.Text, Truncated: true}
}

// ExportedState is the state for the approver of a shell whose exported
// variables were base (export -p) when it started and are now: the
// variables set or changed since.
func ExportedState(base, now string) shell.State {
	return shell.State{Vars: changedVars(parseDeclarations(base), parseDeclarations(now))}
}
