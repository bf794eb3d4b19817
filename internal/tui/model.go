package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tui/markdown"
)

// model is the interface's state; bubbletea calls its methods on one
// goroutine, and everything from the turn arrives as messages.
type model struct {
	cfg  Config
	send func(tea.Msg)

	width, height int
	entries       []*entry
	// scroll is how many lines the transcript is scrolled up from its end.
	scroll int
	in     input
	hist   historyWalk
	style  markdown.Style

	running     bool
	cancel      context.CancelFunc
	interrupted bool
	status      string
	approval    *approvalMsg
	// queued is a line sent while a turn ran; it is sent when it ends.
	queued string
	// pasted holds the large pastes the input shows as placeholders.
	pasted pastes
	// reply is the reply streaming now; tools maps a running turn's call
	// index to its card.
	reply     *entry
	reasoning *entry
	tools     map[int]*entry
}

func newModel(cfg Config) *model {
	m := &model{cfg: cfg, width: 80, height: 24, style: markdown.DefaultStyle(), tools: map[int]*entry{}}
	m.hist.h = cfg.History
	if cfg.Banner != "" {
		m.add(&entry{kind: entryNote, text: cfg.Banner})
	}
	if cfg.Status != nil {
		m.status = cfg.Status()
	}
	return m
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) add(e *entry) *entry {
	e.dirty = true
	m.entries = append(m.entries, e)
	return e
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		switch {
		case m.approval != nil:
		case big(msg.Content):
			m.in.insert(m.pasted.add(msg.Content))
		default:
			m.in.insert(msg.Content)
		}
	case tea.InterruptMsg:
		return m, m.interrupt()
	case eventMsg:
		m.event(agent.Event(msg))
	case noteMsg:
		m.note(string(msg))
	case approvalMsg:
		if msg.reply == nil {
			m.approval = nil
		} else {
			m.approval = &msg
		}
	case doneMsg:
		m.running, m.cancel, m.reply, m.reasoning = false, nil, nil, nil
		m.tools = map[int]*entry{}
		if m.cfg.Status != nil {
			m.status = m.cfg.Status()
		}
		if msg.quit {
			return m, tea.Quit
		}
		if q := m.queued; q != "" {
			m.queued = ""
			m.in.set(q)
			return m, m.submit()
		}
	}
	return m, nil
}

// note adds what a command printed, joining the pieces of one command's
// output into one block.
func (m *model) note(s string) {
	if n := len(m.entries); n > 0 && m.running && m.entries[n-1].kind == entryNote {
		last := m.entries[n-1]
		last.text += s
		last.dirty = true
		return
	}
	m.add(&entry{kind: entryNote, text: s})
}

// event adds a turn's event to the transcript.
func (m *model) event(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		if m.reply == nil {
			m.reply = m.add(&entry{kind: entryReply, md: markdown.New(m.style)})
		}
		m.reply.text += e.Text
		m.reply.dirty = true
	case agent.EventReasoning:
		if m.reasoning == nil {
			m.reasoning = m.add(&entry{kind: entryReasoning})
		}
		m.reasoning.text += e.Text
		m.reasoning.dirty = true
	case agent.EventToolStarted:
		m.reply, m.reasoning = nil, nil
		m.tools[e.Tool.Index] = m.add(&entry{kind: entryTool, tool: e.Tool.Call.Name, args: e.Tool.Call.Arguments})
	case agent.EventToolFinished:
		c := m.tools[e.Tool.Index]
		if c == nil {
			c = m.add(&entry{kind: entryTool, tool: e.Tool.Call.Name, args: e.Tool.Call.Arguments})
		}
		r := e.Tool.Result
		c.status, c.duration, c.result, c.dirty = string(r.Status), e.Tool.Duration, e.Tool.Content, true
		if r.Status != tool.StatusOK {
			c.status = string(r.ErrorCode) + ": " + r.Message
			if c.result == "" {
				c.result = r.Message
			}
		}
	case agent.EventRetry:
		if m.reply != nil {
			m.reply.text = ""
			m.reply.dirty = true
		}
		m.add(&entry{kind: entryNote, text: "model call failed, retrying: " + e.Retry.Err.Error()})
	case agent.EventError:
		m.add(&entry{kind: entryNote, text: "error: " + e.Err.Error()})
	case agent.EventCompressed:
		if e.Err != nil {
			m.add(&entry{kind: entryNote, text: e.Err.Error()})
		} else {
			m.add(&entry{kind: entryNote, text: e.Text})
		}
	case agent.EventDone:
		m.reply, m.reasoning = nil, nil
	}
}

// interrupt is Ctrl-C: it stops the running turn, or quits when none runs
// or one was already interrupted.
func (m *model) interrupt() tea.Cmd {
	if !m.running || m.interrupted {
		return tea.Quit
	}
	m.interrupted = true
	m.queued = ""
	m.cancel()
	m.add(&entry{kind: entryNote, text: "interrupting; Ctrl-C again quits"})
	return nil
}

// submit runs the typed line.
func (m *model) submit() tea.Cmd {
	line := strings.TrimSpace(m.in.String())
	if line == "" {
		return nil
	}
	m.in.set("")
	if m.running {
		// Typed ahead: it goes when the turn ends, unless Ctrl-C stops
		// the turn.
		m.queued = line
		return nil
	}
	m.hist.add(line)
	m.scroll = 0
	m.add(&entry{kind: entryUser, text: line})
	ctx, cancel := context.WithCancel(context.Background())
	m.running, m.cancel, m.interrupted = true, cancel, false
	run, send := m.cfg.Run, m.send
	msg := m.pasted.expand(line)
	return func() tea.Msg {
		defer cancel()
		return doneMsg{quit: run(ctx, msg, sink{send}, noteWriter{send})}
	}
}
