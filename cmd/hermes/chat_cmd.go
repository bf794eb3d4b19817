package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
)

type chatFlags struct {
	turnFlags
	query  string
	json   bool
	resume string
	cont   bool
	agent  string
	plain  bool
	// waitMemory has -q extract the session's facts before exiting
	// rather than in a process left behind.
	waitMemory bool
	// hookAsker asks about hooks not yet allowed; set only when a person
	// at a terminal can answer.
	hookAsker hooks.Asker
}

func newChatCmd(a *cli) *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk to hermes: one question with -q, or a conversation in the terminal",
		Long: `Talk to hermes. With -q it answers one message and exits; without, it
starts a conversation: the reply streams as it arrives, each tool call is
shown on one line, Ctrl-C interrupts the running turn, and Ctrl-C at the
prompt (or Ctrl-D, or /exit) quits. On a terminal the conversation is
full-screen: the reply is drawn as markdown as it streams, each tool call
is a card (Ctrl-O opens the last one), Alt-Enter or Ctrl-J starts a new
line, PgUp/PgDn scroll, Up/Down and Ctrl-R recall what was typed
($HERMES_HOME/history; lines holding secrets are not kept), and Tab
completes /commands. --plain, TERM=dumb or a pipe keep it line by line.

Every message is stored in $HERMES_HOME/state.db as it is produced, so a
conversation cut off by a crash or Ctrl-C continues with --resume ID (or -c
for the most recent one). ` + "`hermes sessions list`" + ` shows the sessions.
Turns of one session run one at a time: a chat whose session is running a
turn in another hermes process waits for it (up to 30 s); if it stays busy,
-q exits with status 75.

Dangerous shell commands need approval (approvals.mode in config.yaml). In
a conversation hermes asks; with -q nobody can be asked, so they are denied
unless --yolo is given. Hardline commands (rm -rf /, mkfs, ...) and
approvals.deny never run.

With --json (and -q) it prints one JSON object:
  {"session_id", "final", "iterations", "tool_calls": [{"name", "status"}],
   "usage": {...}, "stopped_reason"}
where stopped_reason is done, max_turns, repeat_guard, invalid_tool_calls,
truncated, interrupted or error.`,
		Example: `  hermes chat
  hermes chat -q "How much disk is free?"
  hermes chat -q "Summarize README.md" --json
  git diff | hermes chat -q -
  hermes chat -c -q "And the largest directory?"
  hermes chat --resume 20261202_110737_a1b2c3
  hermes chat --agent analyst -q "What changed in the sales figures?"
  hermes chat --toolsets terminal --max-turns 20 --yolo -q "Clean the build dir"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.json && f.query == "" {
				return errors.New("--json needs -q: only a one-shot answer is printed as JSON")
			}
			if f.resume != "" && f.cont {
				return errors.New("use either --resume ID or --continue, not both")
			}
			if f.query == "-" {
				text, err := readQuery(cmd.InOrStdin())
				if err != nil {
					return err
				}
				f.query = text
			}
			if f.query != "" {
				return chatOnce(cmd, a, &f)
			}
			return chatREPL(cmd, a, &f)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.query, "query", "q", "", "answer one `MESSAGE` and exit (- reads it from stdin)")
	fl.BoolVar(&f.json, "json", false, "with -q, print the result as one JSON object")
	fl.StringVar(&f.resume, "resume", "", "continue the session `ID`")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the most recent terminal session")
	fl.BoolVar(&f.plain, "plain", false, "on a terminal, chat line by line instead of in the full-screen interface")
	fl.StringVar(&f.agent, "agent", "", "talk to the role agent `NAME` (agents: in config.yaml; hermes agents list)")
	fl.BoolVar(&f.waitMemory, "wait-memory", false, "with -q, extract the session's lasting facts before exiting, not in the background")
	return cmd
}

// openChat assembles hermes for a chat and picks the session it continues
// ("" for a new one). The caller closes the app.
func openChat(cmd *cobra.Command, a *cli, f *chatFlags) (*app.App, string, error) {
	o := f.options()
	o.HookAsker = f.hookAsker
	h, err := a.openTurns(cmd, &f.turnFlags, o)
	if err != nil {
		return nil, "", err
	}
	id, err := startSession(cmd, h, f)
	if err == nil && f.agent != "" && !slices.Contains(h.Engine.Agents(), f.agent) {
		err = fmt.Errorf("--agent: %q is not configured; %s", f.agent, agentChoices(h.Engine.Agents()))
	}
	if err != nil {
		h.Close()
		return nil, "", err
	}
	return h, id, nil
}

// startSession returns the session id to continue, or "" for a new one.
func startSession(cmd *cobra.Command, h *app.App, f *chatFlags) (string, error) {
	switch {
	case f.resume != "":
		if _, err := h.Sessions.Get(cmd.Context(), f.resume); err != nil {
			if errors.Is(err, session.ErrNotFound) {
				return "", fmt.Errorf("--resume: session %q does not exist; `hermes sessions list` shows the sessions there are", f.resume)
			}
			return "", err
		}
		id, err := session.Newest(cmd.Context(), h.Sessions, f.resume)
		if err == nil && id != f.resume {
			fmt.Fprintf(cmd.ErrOrStderr(), "session %s was compressed; continuing in %s\n", f.resume, id)
		}
		return id, err
	case f.cont:
		s, err := h.Sessions.Latest(cmd.Context(), "cli")
		if errors.Is(err, session.ErrNotFound) {
			return "", errors.New("--continue: there is no earlier terminal session")
		}
		if err != nil {
			return "", err
		}
		return s.ID, nil
	}
	return "", nil
}

// chatOnce answers -q: tool lines go to stderr, the answer (or JSON) to
// stdout. Nobody can approve commands here.
func chatOnce(cmd *cobra.Command, a *cli, f *chatFlags) error {
	// A turn stopped by Ctrl-C or SIGTERM saves what it can, within
	// turnGrace.
	defer exitAfterGrace(cmd.Context(), cmd.ErrOrStderr())()
	if interactiveInput(cmd) {
		f.hookAsker = &hookAsker{out: cmd.ErrOrStderr(), lines: newLineSource(cmd.InOrStdin())}
	}
	h, id, err := openChat(cmd, a, f)
	if err != nil {
		return err
	}
	defer h.Close()
	text, err := queryText(h, f.query)
	if err != nil {
		return err
	}
	sink := &printer{info: cmd.ErrOrStderr(), noErrors: true}
	if f.json {
		sink.info = io.Discard
	}
	cwd := h.Workdir()
	in := engine.Input{Text: text, Source: "cli", Workdir: cwd, Agent: f.agent, Approval: safety.Asker{Yolo: f.yolo},
		Waiting: waitingNotice(cmd.ErrOrStderr(), id)}
	res, err := h.Engine.Turn(cmd.Context(), id, in, sink)
	var busy *engine.BusyError
	switch {
	case errors.As(err, &busy):
		fmt.Fprintln(cmd.ErrOrStderr(), "hermes:", err)
		return &exitError{code: exitBusy}
	case err != nil && cmd.Context().Err() != nil:
		// Interrupted before the turn began (waiting for a busy session).
		fmt.Fprintln(cmd.ErrOrStderr(), "hermes:", err)
		return &exitError{code: 130}
	case err != nil:
		return err
	}
	if err := h.Sessions.End(context.WithoutCancel(cmd.Context()), res.SessionID, string(res.Stopped)); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "hermes: marking session %s ended: %v\n", res.SessionID, err)
	}
	h.Engine.SessionEnded(cmd.Context(), res.SessionID, string(res.Stopped))
	if res.Stopped == agent.StopDone && h.Config.Config.Memory.LongTerm.On() {
		rememberOnce(cmd, a, h, f.waitMemory, res.SessionID)
	}
	out := cmd.OutOrStdout()
	if f.json {
		j := chatJSON{SessionID: res.SessionID, Final: res.Final, Iterations: res.Iterations, ToolCalls: res.ToolCalls,
			Usage: res.Usage, Stopped: res.Stopped}
		if j.ToolCalls == nil {
			j.ToolCalls = []agent.CallSummary{}
		}
		if res.Err != nil {
			j.Error = res.Err.Error()
		}
		writeJSON(out, j)
	} else if res.Final != "" {
		fmt.Fprintln(out, res.Final)
	}
	switch res.Stopped {
	case agent.StopError:
		if !f.json {
			fmt.Fprintf(cmd.ErrOrStderr(), "hermes: %v\n(session %s is saved; continue it with --resume)\n", res.Err, res.SessionID)
		}
		return &exitError{code: 1}
	case agent.StopInterrupted:
		return &exitError{code: 130}
	}
	return nil
}

// onceExtractTimeout bounds -q --wait-memory's extraction.
const onceExtractTimeout = 2 * time.Minute

// rememberOnce has a one-shot session's lasting facts extracted: by a
// process left behind, so the answer is not held up by another model
// call, or here with --wait-memory (for a script that reads memory next).
// Neither fails the chat.
func rememberOnce(cmd *cobra.Command, a *cli, h *app.App, wait bool, sessionID string) {
	if !wait {
		if err := extractInBackground(a, sessionID); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "hermes: the session's facts are not extracted: %v\n", err)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), onceExtractTimeout)
	defer cancel()
	if _, _, err := h.Engine.ExtractFacts(ctx, sessionID); err != nil && !errors.Is(err, engine.ErrNothingToExtract) && !errors.Is(err, facts.ErrExtracted) {
		fmt.Fprintf(cmd.ErrOrStderr(), "hermes: the session's facts are not extracted: %v\n", err)
	}
}

// exitBusy is chat -q's exit status when its session stayed busy with
// another process's turn: EX_TEMPFAIL, "try again later".
const exitBusy = 75

// waitingNotice says, once, that the turn waits for another process's
// turn in the session.
func waitingNotice(w io.Writer, id string) func(holder string) {
	return func(holder string) {
		fmt.Fprintf(w, "session %s is busy: hermes process %s is running a turn in it; waiting for it to finish (up to %s)…\n",
			id, holder, engine.DefaultLeaseWait)
	}
}

// interactiveInput reports whether stdin is a terminal a person types in.
func interactiveInput(cmd *cobra.Command) bool {
	f, ok := cmd.InOrStdin().(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// askYes asks question on stderr, with " [y/N] ", and reports whether the
// answer read from stdin was yes.
func askYes(cmd *cobra.Command, question string) bool {
	fmt.Fprint(cmd.ErrOrStderr(), question+" [y/N] ")
	answer, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// endSession records why the session stopped being used; with long-term
// memory on, its facts are extracted in the background.
func endSession(cmd *cobra.Command, h *app.App, id, reason string) {
	if err := h.Engine.EndSession(context.WithoutCancel(cmd.Context()), id, reason); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "hermes: %v\n", err)
	}
}

// maxQuery bounds a message read from stdin (-q -); a larger one belongs
// in a file the agent reads.
const maxQuery = 1 << 20

// readQuery reads -q -'s message from r: all of it, without the final
// newline. An empty or oversized message is refused.
func readQuery(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxQuery+1))
	if err != nil {
		return "", fmt.Errorf("-q -: reading the message from stdin: %w", err)
	}
	if len(b) > maxQuery {
		return "", fmt.Errorf("-q -: the message on stdin is over %d bytes; write it to a file and ask hermes to read the file", maxQuery)
	}
	text := strings.TrimRight(string(b), "\r\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("-q -: stdin held no message; pipe one in (echo \"question\" | hermes chat -q -)")
	}
	return text, nil
}
