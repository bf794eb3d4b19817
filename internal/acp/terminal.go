package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// cleanupWait bounds the kill, output and release requests sent after a
// command's wait ended, so an editor that stopped answering cannot hold
// the turn.
const cleanupWait = 5 * time.Second

// withTerminal returns ctx with the runner of a turn in session id when
// the editor offered terminals in initialize: the terminal tool's
// foreground commands then run in them, shown in the tool call through u.
func (s *Server) withTerminal(ctx context.Context, id string, u *updater) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[id]
	if !s.clientTerminal || !ok {
		return ctx
	}
	if st.shell == nil {
		st.shell = &editorShell{conn: s.conn, sid: acpsdk.SessionId(id)}
	}
	return terminal.WithRunner(ctx, turnRunner{sh: st.shell, u: u})
}

// removeShells deletes what the sessions' commands in the editor's
// terminals left; Serve calls it when the editor is gone.
func (s *Server) removeShells() {
	s.mu.Lock()
	var shells []*editorShell
	for _, st := range s.sessions {
		shells = append(shells, st.shell)
	}
	s.mu.Unlock()
	for _, sh := range shells {
		sh.remove()
	}
}

// turnRunner runs a turn's commands in the editor's terminals and shows
// each terminal in the tool call that runs it.
type turnRunner struct {
	sh *editorShell
	u  *updater
}

// State is the session's state.
func (r turnRunner) State() shell.State { return r.sh.State() }

// Run runs cmd in a new terminal of the editor: it waits for the command
// to exit, or kills it when its timeout passes or the turn is cancelled,
// then reads its output and releases the terminal. Before the session's
// first command, a terminal that runs nothing else records the variables
// the editor's terminals start with, so that the first command is
// already kept from the secrets among them.
func (r turnRunner) Run(ctx context.Context, cmd terminal.RunnerCommand) (terminal.Ran, error) {
	e := r.sh
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return terminal.Ran{}, fmt.Errorf("the session was closed in the editor; no command runs in it")
	}
	if err := e.probe(ctx, cmd); err != nil {
		return terminal.Ran{}, err
	}
	for _, f := range []string{"env.new", "cwd.new"} {
		_ = os.Remove(filepath.Join(e.dir, f))
	}
	args := append([]string{"-c", editorScript, "hermes", e.dir, cmd.Dir, cmd.Text}, e.hidden(cmd.Hidden)...)
	show := func(tid string) { r.u.terminal(tool.InvocationFrom(ctx).CallID, tid) }
	ran, err := e.exec(ctx, args, cmd, show)
	if err != nil {
		return terminal.Ran{}, err
	}
	if ran.Cause == terminal.Exited {
		ran.Cwd = e.commit()
	}
	if !e.told {
		ran.Note, e.told = carryNote, true
	}
	return ran, nil
}

// probe makes the session's state directory and records in it the
// variables the editor's terminals start with, unless that was done.
func (e *editorShell) probe(ctx context.Context, cmd terminal.RunnerCommand) error {
	if e.dir == "" {
		dir, err := os.MkdirTemp("", "hermes-acp-terminal-")
		if err != nil {
			return fmt.Errorf("making the state directory of the editor's terminal: %w", err)
		}
		e.dir = dir
	}
	if _, err := os.Stat(filepath.Join(e.dir, "base")); err == nil {
		return nil
	}
	ran, err := e.exec(ctx, []string{"-c", probeScript, "hermes", e.dir}, cmd, nil)
	if err == nil && (ran.Cause != terminal.Exited || ran.ExitCode != 0) {
		err = fmt.Errorf("it ended with status %d: %s", ran.ExitCode, ran.Output)
	}
	if err != nil {
		return fmt.Errorf("reading the environment of the editor's terminals: %w", err)
	}
	return nil
}

// exec runs bash with args in a new terminal of the editor, in cmd.Dir
// with cmd's output cap and timeout, telling show (when set) the
// terminal's id, and releases the terminal when the command ended or was
// killed.
func (e *editorShell) exec(ctx context.Context, args []string, cmd terminal.RunnerCommand, show func(tid string)) (terminal.Ran, error) {
	var env []acpsdk.EnvVariable
	for _, kv := range terminal.FixedEnv() {
		name, value, _ := strings.Cut(kv, "=")
		env = append(env, acpsdk.EnvVariable{Name: name, Value: value})
	}
	limit := cmd.MaxOutputBytes
	created, err := e.conn.CreateTerminal(ctx, acpsdk.CreateTerminalRequest{
		SessionId: e.sid, Command: "bash", Args: args, Cwd: &cmd.Dir, Env: env, OutputByteLimit: &limit,
	})
	if err != nil {
		return terminal.Ran{}, fmt.Errorf("the editor did not start a terminal (terminal/create): %w", err)
	}
	tid := created.TerminalId
	if show != nil {
		show(tid)
	}
	wctx, cancel := context.WithTimeout(ctx, cmd.Timeout)
	exit, werr := e.conn.WaitForTerminalExit(wctx, acpsdk.WaitForTerminalExitRequest{SessionId: e.sid, TerminalId: tid})
	cancel()
	ran := terminal.Ran{Cause: terminal.Exited}
	switch {
	case werr == nil:
		ran.ExitCode = exitCode(exit)
	case ctx.Err() != nil:
		ran.Cause = terminal.Interrupted
	case errors.Is(wctx.Err(), context.DeadlineExceeded):
		ran.Cause, ran.ExitCode = terminal.TimedOut, terminal.ExitTimeout
	}
	cctx, done := context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
	defer done()
	if ran.Cause != terminal.Exited || werr != nil {
		_, _ = e.conn.KillTerminal(cctx, acpsdk.KillTerminalRequest{SessionId: e.sid, TerminalId: tid})
	}
	out, oerr := e.conn.TerminalOutput(cctx, acpsdk.TerminalOutputRequest{SessionId: e.sid, TerminalId: tid})
	_, _ = e.conn.ReleaseTerminal(cctx, acpsdk.ReleaseTerminalRequest{SessionId: e.sid, TerminalId: tid})
	if werr != nil && ran.Cause == terminal.Exited {
		return terminal.Ran{}, fmt.Errorf("waiting for the editor's terminal %s (terminal/wait_for_exit): %w", tid, werr)
	}
	if oerr == nil {
		ran.Output, ran.Truncated = lineEnds(out.Output), out.Truncated
	}
	return ran, nil
}

// lineEnds turns the CRLF line ends of an editor's terminal, which
// usually runs commands on a pseudo-terminal, into the LF ones hermes's
// own shell gives.
func lineEnds(out string) string {
	return strings.ReplaceAll(out, "\r\n", "\n")
}

// terminal shows the editor's terminal tid in the running call callID,
// so the editor shows its output live; the call's finishing update keeps
// showing it.
func (u *updater) terminal(callID, tid string) {
	u.mu.Lock()
	if _, ok := u.running[callID]; ok {
		if u.terminals == nil {
			u.terminals = make(map[string][]string)
		}
		u.terminals[callID] = append(u.terminals[callID], tid)
	}
	u.mu.Unlock()
	u.send(acpsdk.UpdateToolCall(acpsdk.ToolCallId(callID),
		acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(tid)})))
}
