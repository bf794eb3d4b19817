package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/internal/tui"
)

// useTUI reports whether the chat gets the full-screen interface: stdin
// and stdout are a terminal that can draw it, and --plain was not given.
func useTUI(cmd *cobra.Command, f *chatFlags) bool {
	if f.plain || !interactiveInput(cmd) {
		return false
	}
	out, ok := cmd.OutOrStdout().(*os.File)
	if !ok || !term.IsTerminal(int(out.Fd())) {
		return false
	}
	t := os.Getenv("TERM")
	return t != "" && t != "dumb"
}

// screenWriter takes what would go to stdout or stderr while the
// interface owns the screen (log lines, a command's output) and shows it
// as a note in the transcript instead of writing over the screen.
type screenWriter struct {
	mu   sync.Mutex
	to   io.Writer
	real io.Writer
}

func (w *screenWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.to.Write(b)
}

// route sends writes to to, or back to the real writer with nil.
func (w *screenWriter) route(to io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if to == nil {
		to = w.real
	}
	w.to = to
}

// chatTUI is the full-screen conversation.
func chatTUI(cmd *cobra.Command, a *cli, f *chatFlags) error {
	// The log goes to $HERMES_HOME/logs/hermes.log (/logs shows it);
	// with --debug it stays on stderr, which the interface shows as notes.
	closeLog, err := logToFile(cmd, a)
	if err != nil {
		return err
	}
	defer closeLog()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	screen := &screenWriter{to: stderr, real: stderr}
	screenOut := &screenWriter{to: stdout, real: stdout}
	cmd.SetErr(screen)
	cmd.SetOut(screenOut)
	hookAsk := &screenHookAsker{}
	f.hookAsker = hookAsk
	h, id, err := openChat(cmd, a, f)
	if err != nil {
		return err
	}
	defer h.Close()
	if a.stopSignals != nil {
		a.stopSignals()
		a.stopSignals = nil
	}
	base := a.base
	if base == nil {
		base = context.Background()
	}
	watchCtx, stopWatch := context.WithCancel(base)
	defer stopWatch()
	go h.Tools.Watch(watchCtx)

	main, _ := h.Models.Main()
	st := &replState{cmd: cmd, a: a, h: h, f: f, base: base, out: io.Discard, id: id}
	commands := h.Slash()
	var names []string
	for _, c := range commands.Commands(slash.CLI) {
		names = append(names, c.Name)
	}
	var lastInput atomic.Int64
	var prompter safety.Prompter
	cwd := h.Workdir()
	var turns sync.WaitGroup
	run := func(ctx context.Context, line string, sink agent.Sink, out io.Writer) bool {
		turns.Add(1)
		defer turns.Done()
		st.out = out
		text, quit, ok := st.resolve(commands, line)
		if quit || !ok {
			return quit
		}
		st.lastSent = text
		in := engine.Input{Text: text, Source: "cli", Workdir: cwd, Agent: f.agent, Model: st.model,
			Approval: safety.Asker{Prompter: prompter, Yolo: f.yolo},
			Reviewed: func(_ string, saved []string) { fmt.Fprintf(out, "%s\n", strings.Join(saved, "; ")) },
			Waiting:  waitingNotice(out, st.id)}
		usage := agent.SinkFunc(func(e agent.Event) {
			if e.Kind == agent.EventUsage && e.Usage.InputTokens > 0 {
				lastInput.Store(int64(e.Usage.InputTokens))
			}
			sink.Event(e)
		})
		res, err := h.Engine.Turn(ctx, st.id, in, usage)
		if err != nil {
			fmt.Fprintln(out, "hermes:", err)
			return false
		}
		st.id = res.SessionID
		if res.Note != "" {
			fmt.Fprintln(out, res.Note)
		}
		return false
	}
	status := func() string {
		model := main.Model
		if st.model != "" {
			model = st.model
		}
		parts := []string{model}
		if st.id == "" {
			return strings.Join(append(parts, "new session"), " · ")
		}
		s, err := h.Sessions.Get(base, st.id)
		if err != nil {
			return strings.Join(append(parts, st.id), " · ")
		}
		name := s.Title
		if name == "" {
			name = s.ID
		}
		window := main.ContextLength
		if window <= 0 {
			window, _ = llm.ContextWindow(model)
		}
		parts = append(parts, name, fmt.Sprintf("%d tokens", s.InputTokens+s.OutputTokens))
		if n := lastInput.Load(); n > 0 && window > 0 {
			parts = append(parts, fmt.Sprintf("context %d%%", n*100/int64(window)))
		}
		return strings.Join(append(parts, fmt.Sprintf("$%.4f", s.CostUSD)), " · ")
	}
	where := "a new session"
	if id != "" {
		where = "session " + id
	}
	p := tui.New(tui.Config{
		Run: run, Status: status, Commands: names,
		History: tui.LoadHistory(filepath.Join(h.Config.Paths.Home, "history")),
		Banner: fmt.Sprintf("hermes %s · %s via %s · %s\nEnter sends, Alt-Enter a new line; Ctrl-C interrupts a turn, Ctrl-C again or Ctrl-D quits; Ctrl-O opens the last tool card, Ctrl-T the reasoning; /help lists the commands.",
			version, main.Model, main.Provider, where),
	}, cmd.InOrStdin(), stdout)
	prompter = p.Prompter()
	hookAsk.set(prompter)
	notes := p.Notes()
	screen.route(notes)
	screenOut.route(notes)
	running, err := p.Run()
	screen.route(nil)
	screenOut.route(nil)
	if running {
		// The interrupted turn saves what it can; one that cannot stop
		// within the grace takes the chat with it.
		stopped := make(chan struct{})
		go func() { turns.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(turnGrace):
			fmt.Fprintf(stderr, "the turn did not stop within %s; quitting\n", turnGrace)
			os.Exit(130)
		}
	}
	if h.Config.Config.Memory.LongTerm.On() && st.id != "" {
		fmt.Fprintln(stderr, "(noting what to remember from this session…)")
	}
	endSession(cmd, h, st.id, "exit")
	drain(stderr, h)
	return err
}
