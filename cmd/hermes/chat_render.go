package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tui"
)

// printer renders a turn's events on a terminal: reply text as it streams
// (when text is set), and each tool call as one line when it starts and
// one when it ends. Tool workers run in parallel, so writes are serialized.
type printer struct {
	mu   sync.Mutex
	text io.Writer // where streamed reply text goes; nil to not stream
	info io.Writer // where tool lines go
	// noErrors leaves errors to the caller, which reports them once at
	// the end (chat -q).
	noErrors bool
	// midLine is set while the last text written did not end a line, so a
	// tool line starts on a fresh one.
	midLine bool
}

func (p *printer) Event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventText:
		if p.text != nil && e.Text != "" {
			io.WriteString(p.text, e.Text)
			p.midLine = !strings.HasSuffix(e.Text, "\n")
		}
	case agent.EventRetry:
		p.newline()
		fmt.Fprintf(p.info, "  ↻ model call failed, retrying in %s: %v\n", e.Retry.Delay.Round(time.Millisecond), e.Retry.Err)
	case agent.EventToolStarted:
		p.newline()
		fmt.Fprintf(p.info, "  ⚙ %s %s\n", e.Tool.Call.Name, preview(e.Tool.Call.Arguments, 100))
	case agent.EventToolFinished:
		p.newline()
		r := e.Tool.Result
		if r.Status == tool.StatusOK {
			fmt.Fprintf(p.info, "  ✓ %s (%s)\n", e.Tool.Call.Name, e.Tool.Duration.Round(time.Millisecond))
		} else {
			fmt.Fprintf(p.info, "  ✗ %s\n", failureLine(e.Tool.Call.Name, string(r.ErrorCode), oneLine(r.Message, 160)))
		}
	case agent.EventError:
		if p.noErrors {
			return
		}
		p.newline()
		fmt.Fprintf(p.info, "  ! %v\n", e.Err)
	case agent.EventCompressed:
		p.newline()
		if e.Err != nil {
			fmt.Fprintf(p.info, "  ! %v\n", e.Err)
		} else {
			fmt.Fprintf(p.info, "  ⇣ %s\n", e.Text)
		}
	case agent.EventDone:
		p.newline()
	}
}

func (p *printer) newline() {
	if p.midLine && p.text != nil {
		io.WriteString(p.text, "\n")
		p.midLine = false
	}
}

// preview shows a call's arguments in one short line: the values of a
// small object in key order ("command: ls -la"), else the JSON cut short.
func preview(args string, max int) string {
	return oneLine(tui.ArgsLine(args), max)
}

// oneLine folds s onto one line and cuts it to max characters. Control
// characters are shown escaped: s may be a model's command, whose escape
// sequences would otherwise redraw the screen around it.
func oneLine(s string, max int) string {
	s = safety.Escape(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// chatJSON is what `hermes chat -q --json` prints.
type chatJSON struct {
	SessionID  string              `json:"session_id"`
	Final      string              `json:"final"`
	Iterations int                 `json:"iterations"`
	ToolCalls  []agent.CallSummary `json:"tool_calls"`
	Usage      any                 `json:"usage"`
	Stopped    agent.Stop          `json:"stopped_reason"`
	Error      string              `json:"error,omitempty"`
}

// failureLine is a failed call as the chat shows it, saying each thing
// once: "terminal was interrupted: …" rather than "terminal: interrupted:
// terminal was interrupted: …", when the message already names the tool
// or the kind of failure.
func failureLine(name, code, msg string) string {
	if strings.HasPrefix(msg, name+" ") {
		return msg
	}
	if strings.Contains(strings.ToLower(msg), strings.ReplaceAll(code, "_", " ")) {
		return name + ": " + msg
	}
	return name + ": " + code + ": " + msg
}
