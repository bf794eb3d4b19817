package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// Limits of a job's script.
const (
	// scriptTimeout bounds a job's pre-run script.
	scriptTimeout = 5 * time.Minute
	// scriptKillGrace is how long a script told to stop (SIGTERM to its
	// group) has before everything left of its group gets SIGKILL.
	scriptKillGrace = 2 * time.Second
)

// runScript runs a job's script, returning its output redacted like every
// tool result, so no secret the script printed reaches the model, the
// run history or a delivery. A run started from inside a turn (the
// cronjob tool's "run") first asks that turn's approver, as the terminal
// would for the same command: the model chose to run it now.
func (e *Engine) runScript(ctx context.Context, script string) (string, error) {
	clean := redact.Secrets
	if e.opt.Tools.Redact != nil {
		clean = e.opt.Tools.Redact
	}
	// A script from config.yaml may hold a secret its ${VAR} expanded
	// to; the approver (a person, or a model judging) sees it redacted,
	// which leaves what the command does as it is.
	if ap := tool.InvocationFrom(ctx).Approver; ap != nil {
		if err := ap.ApproveCommand(ctx, clean(script)); err != nil {
			return "", fmt.Errorf("not run: %w", err)
		}
	}
	env := redact.ScrubEnv(os.Environ(), nil)
	if e.opt.Jobs.ScriptEnv != nil {
		env = e.opt.Jobs.ScriptEnv()
	}
	out, err := runScript(ctx, script, env)
	if err != nil {
		err = errors.New(clean(err.Error()))
	}
	return clean(out), err
}

// runScript runs script with sh and env and returns its output (stdout;
// a failure's error carries the end of stderr). Like a terminal command
// it runs in a session and process group of its own under a procgroup
// guard, with stdin from /dev/null: when the run ends — the script
// finished, the time limit passed, or ctx ended — whatever is left of the
// group is killed, and if hermes dies the guard kills the group.
func runScript(ctx context.Context, script string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", procgroup.Guard(script))
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	procgroup.NewSession(cmd)
	cmd.Cancel = func() error {
		procgroup.Term(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = scriptKillGrace
	done, err := procgroup.Start(cmd)
	if err != nil {
		return "", err
	}
	err = <-done
	procgroup.Kill(cmd.Process.Pid)
	switch {
	case ctx.Err() != nil:
		return stdout.String(), fmt.Errorf("stopped and killed: %w", context.Cause(ctx))
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: the script succeeded, and what it left running
		// held its output open until it was killed.
		return strings.TrimSpace(stdout.String()), nil
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		err = fmt.Errorf("%w: %s", err, msg)
	}
	return stdout.String(), err
}
