package gateway

import (
	"strings"
	"sync"
	"unicode"

	"github.com/hermes-go/hermes/internal/agent"
)

// attachPrefix starts a line of a reply that attaches a file:
// "MEDIA:/path/to/report.pdf" on a line of its own, as Hermes writes it.
// The line is taken out of the text the chat sees.
const attachPrefix = "MEDIA:"

// attachLines is the sink between a turn and the chat that takes the
// attachment lines out of the reply as it streams. Text is passed on as
// it comes, except the start of a line that may still turn out to be an
// attachment, which waits for the rest of its line (or the end of the
// step).
type attachLines struct {
	next agent.Sink

	mu sync.Mutex
	// held is the start of a line that may be an attachment; midLine is
	// set when the text passed on does not end at a line's start.
	held    string
	midLine bool
	paths   []string
}

// Event passes e on with the attachment lines taken out of its text.
func (a *attachLines) Event(e agent.Event) {
	a.mu.Lock()
	switch e.Kind {
	case agent.EventText:
		e.Text = a.take(e.Text)
		if e.Text == "" {
			a.mu.Unlock()
			return
		}
	case agent.EventToolStarted, agent.EventDone:
		// The step ends: a line held so far is complete.
		rest := a.line(a.held)
		a.held, a.midLine = "", false
		if rest != "" {
			a.mu.Unlock()
			a.next.Event(agent.Event{Kind: agent.EventText, Text: rest})
			a.next.Event(e)
			return
		}
	}
	a.mu.Unlock()
	a.next.Event(e)
}

// take returns the part of text to show now.
func (a *attachLines) take(text string) string {
	var out strings.Builder
	s := a.held + text
	a.held = ""
	for s != "" {
		if a.midLine {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				out.WriteString(s)
				return out.String()
			}
			out.WriteString(s[:i+1])
			s, a.midLine = s[i+1:], false
			continue
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			if mayAttach(s) {
				a.held = s
				return out.String()
			}
			out.WriteString(s)
			a.midLine = true
			return out.String()
		}
		out.WriteString(a.line(s[:i+1]))
		s = s[i+1:]
	}
	return out.String()
}

// line returns a whole line as it is shown: nothing when it attaches a
// file, which is noted.
func (a *attachLines) line(l string) string {
	if path, ok := attachment(l); ok {
		a.paths = append(a.paths, path)
		return ""
	}
	return l
}

// Paths returns the files the reply attached, in order.
func (a *attachLines) Paths() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.paths...)
}

// attachment returns the path a line attaches, if it is such a line:
// MEDIA:path, with spaces around and in code quotes allowed.
func attachment(line string) (string, bool) {
	rest, ok := strings.CutPrefix(lineStart(strings.TrimSpace(line)), attachPrefix)
	if !ok {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(strings.TrimRight(rest, "`")), `"'`), true
}

// mayAttach reports whether the start of a line may still become an
// attachment line.
func mayAttach(start string) bool {
	t := lineStart(start)
	return strings.HasPrefix(t, attachPrefix) || strings.HasPrefix(attachPrefix, t)
}

// lineStart is a line without the spaces and code quotes it starts with.
func lineStart(s string) string {
	return strings.TrimLeft(strings.TrimLeftFunc(s, unicode.IsSpace), "`")
}
