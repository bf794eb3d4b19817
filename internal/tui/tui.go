// Package tui is the full-screen terminal interface of `hermes chat`: a
// transcript of the conversation above a multi-line input and a status
// bar, with tool calls as cards, the reply rendered as markdown while it
// streams, and dangerous commands approved in a modal.
//
// The package draws and reads keys; what a line does is the caller's
// Config.Run, which runs a turn or a slash command in the background, so
// the screen keeps answering keys while a reply streams. Everything shown
// in the transcript comes from a model or a tool, so every piece of it is
// rendered through the markdown package or escaped before it is drawn:
// nothing in it reaches the terminal as a control sequence.
package tui

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/internal/agent"
)

// Config is what the interface needs from the chat that runs it.
type Config struct {
	// Run does what a submitted line asks: a slash command or a turn. It
	// runs off the interface's goroutine; the turn's events go to sink,
	// what a command prints to out (shown as a system note). ctx is
	// cancelled by Ctrl-C. It reports whether the chat should end.
	Run func(ctx context.Context, line string, sink agent.Sink, out io.Writer) (quit bool)
	// Status returns the status bar's text; it is called after each turn
	// and command.
	Status func() string
	// Commands lists the slash commands (without "/") Tab completes.
	Commands []string
	// History keeps the lines typed; nil keeps none between runs.
	History *History
	// Banner is the first system note.
	Banner string
}

// Program is a running interface.
type Program struct {
	p *tea.Program
	m *model
}

// New prepares the interface on in and out.
func New(cfg Config, in io.Reader, out io.Writer) *Program {
	m := newModel(cfg)
	// 120 frames a second keeps a key's echo within 16 ms while a reply
	// streams.
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(120))
	m.send = p.Send
	return &Program{p: p, m: m}
}

// Run shows the interface until the person quits (or SIGTERM ends it).
// It reports whether a turn was still running then; that turn's context
// is cancelled, and the caller waits for it to stop.
func (p *Program) Run() (turnRunning bool, err error) {
	_, err = p.p.Run()
	if p.m.running {
		p.m.cancel()
	}
	return p.m.running, err
}

// Prompter returns the approval prompter that asks in the interface's
// modal.
func (p *Program) Prompter() *Prompter { return &Prompter{send: p.p.Send} }

// eventMsg carries one event of the running turn.
type eventMsg agent.Event

// noteMsg carries what a command printed.
type noteMsg string

// doneMsg says the line's Run returned.
type doneMsg struct{ quit bool }

// sink forwards a turn's events into the program.
type sink struct{ send func(tea.Msg) }

func (s sink) Event(e agent.Event) { s.send(eventMsg(e)) }

// noteWriter forwards what a command writes as system notes.
type noteWriter struct{ send func(tea.Msg) }

func (w noteWriter) Write(b []byte) (int, error) {
	w.send(noteMsg(string(b)))
	return len(b), nil
}

// Notes returns a writer whose writes are shown as system notes in the
// transcript, for output that would otherwise write over the screen.
func (p *Program) Notes() io.Writer { return noteWriter{p.p.Send} }
