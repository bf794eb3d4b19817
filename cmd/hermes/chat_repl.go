package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/slash"
)

// lineSource reads lines from the terminal in the background, so the chat
// prompt and an approval question can both wait for the next line while
// also watching for Ctrl-C.
type lineSource struct {
	lines chan string
	done  chan struct{} // closed at end of input
}

func newLineSource(r io.Reader) *lineSource {
	s := &lineSource{lines: make(chan string), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.done)
	}()
	return s
}

// read returns the next line, io.EOF at the end of input, or ctx's error.
func (s *lineSource) read(ctx context.Context) (string, error) {
	select {
	case l := <-s.lines:
		return l, nil
	case <-s.done:
		return "", io.EOF
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// chatREPL is the line-mode conversation.
func chatREPL(cmd *cobra.Command, a *cli, f *chatFlags) error {
	if useTUI(cmd, f) {
		return chatTUI(cmd, a, f)
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	lines := newLineSource(cmd.InOrStdin())
	var prompter safety.Prompter
	if interactiveInput(cmd) {
		prompter = &consolePrompter{out: out, lines: lines}
		f.hookAsker = &hookAsker{out: out, lines: lines}
		closeLog, err := logToFile(cmd, a)
		if err != nil {
			return err
		}
		defer closeLog()
	}
	h, id, err := openChat(cmd, a, f)
	if err != nil {
		return err
	}
	defer h.Close()
	// The chat handles Ctrl-C itself: the first interrupts the running
	// turn, a second one (or one at the prompt) quits.
	if a.stopSignals != nil {
		a.stopSignals()
		a.stopSignals = nil
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	base := a.base
	if base == nil {
		base = context.Background()
	}
	// Declared tools files edited during the chat take effect from the
	// next turn.
	watchCtx, stopWatch := context.WithCancel(base)
	defer stopWatch()
	go h.Tools.Watch(watchCtx)

	where := "a new session"
	if id != "" {
		where = "session " + id
	}
	model, _ := h.Models.Main()
	fmt.Fprintf(out, "hermes %s · %s via %s · %s\nCtrl-C interrupts a turn; Ctrl-D, /exit or Ctrl-C at the prompt quits. /new starts a new session.\n",
		version, model.Model, model.Provider, where)
	cwd := h.Workdir()
	defer func() {
		if h.Config.Config.Memory.LongTerm.On() && id != "" {
			fmt.Fprintln(errOut, "(noting what to remember from this session…)")
		}
		endSession(cmd, h, id, "exit")
		drain(errOut, h)
	}()
	reviewed := func(_ string, saved []string) {
		fmt.Fprintf(out, "\n· %s\n", strings.Join(saved, "; "))
	}
	commands := h.Slash()
	st := &replState{cmd: cmd, a: a, h: h, f: f, base: base, out: out, id: id}
	defer func() { id = st.id }()
	for {
		fmt.Fprint(out, "› ")
		var line string
		select {
		case <-sigs:
			fmt.Fprintln(out)
			return nil
		case <-lines.done:
			fmt.Fprintln(out)
			return nil
		case line = <-lines.lines:
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		text, quit, ok := st.resolve(commands, text)
		if quit {
			return nil
		}
		if !ok {
			continue
		}
		st.lastSent = text
		ctx, cancel := context.WithCancel(base)
		type done struct {
			res *engine.TurnResult
			err error
		}
		finished := make(chan done, 1)
		in := engine.Input{Text: text, Source: "cli", Workdir: cwd, Agent: f.agent, Model: st.model, Approval: safety.Asker{Prompter: prompter, Yolo: f.yolo}, Reviewed: reviewed,
			Waiting: waitingNotice(errOut, st.id)}
		go func() {
			res, err := h.Engine.Turn(ctx, st.id, in, &printer{text: out, info: out})
			finished <- done{res, err}
		}()
		var d done
		var graceTimer *time.Timer
		var grace <-chan time.Time
	wait:
		for {
			select {
			case d = <-finished:
				break wait
			case <-grace:
				fmt.Fprintf(errOut, "\nthe turn did not stop within %s; quitting\n", turnGrace)
				os.Exit(130)
			case <-sigs:
				if grace != nil {
					fmt.Fprintln(errOut, "\nquitting")
					os.Exit(130)
				}
				// The turn saves what it can; one that cannot stop
				// within the grace takes the chat with it.
				graceTimer = time.NewTimer(turnGrace)
				grace = graceTimer.C
				fmt.Fprintln(errOut, "\n(interrupting; Ctrl-C again quits)")
				cancel()
			}
		}
		if graceTimer != nil {
			graceTimer.Stop()
		}
		cancel()
		if d.err != nil {
			fmt.Fprintln(errOut, "hermes:", d.err)
			continue
		}
		st.id = d.res.SessionID
		if d.res.Note != "" {
			// The streamed text already showed the progress; say why the
			// turn stopped.
			fmt.Fprintln(out, d.res.Note)
		}
	}
}

// resolve turns a line typed in the chat into the message to send: a
// slash command runs here (ok is false, quit says whether it ends the
// chat), a skill's command becomes its message, anything else is sent as
// typed.
func (s *replState) resolve(commands slash.Registry, text string) (msg string, quit, ok bool) {
	name, args, isCmd := slash.Parse(text)
	if !isCmd {
		return text, false, true
	}
	c, err := commands.Lookup(slash.CLI, name)
	if err != nil {
		fmt.Fprintln(s.out, err)
		return "", false, false
	}
	quit, handled := s.command(c, args)
	switch {
	case quit:
		return "", true, false
	case handled && s.pending != "":
		// /retry took back the answer and sends the message again.
		msg, s.pending = s.pending, ""
		return msg, false, true
	case handled:
		return "", false, false
	}
	invoked, err := slashSkill(s.h, c.Name, args)
	if err != nil {
		fmt.Fprintln(s.out, err)
		return "", false, false
	}
	return invoked, false, true
}

// reloadMCP answers /reload-mcp: it reads mcp_servers from config.yaml
// again, reconnects the servers that were added or changed, drops the
// removed ones, and prints each server's state.
func reloadMCP(cmd *cobra.Command, a *cli, h *app.App, ctx context.Context) {
	out := cmd.OutOrStdout()
	l, err := config.Load(a.loadOptions())
	if err != nil {
		fmt.Fprintln(out, "reload-mcp: config.yaml:", err)
		return
	}
	if err := h.ReloadMCP(ctx, l.Config); err != nil {
		fmt.Fprintln(out, "reload-mcp:", err)
	}
	printMCPStatus(out, h.Tools.MCP.Status())
}
