package gateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
)

// sinkLog records the events a sink passes on.
type sinkLog struct{ text strings.Builder }

func (l *sinkLog) Event(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		l.text.WriteString(e.Text)
	case agent.EventToolStarted:
		l.text.WriteString("|tool|")
	case agent.EventDone:
		l.text.WriteString("|done|")
	}
}

// Attachment lines leave the reply however the text is cut into deltas,
// in one step or across a tool call; lines that only look like one at
// first, or mention MEDIA: inside, are shown.
func TestAttachLines(t *testing.T) {
	tests := []struct {
		steps     []string
		shown     string
		attaching []string
	}{
		{[]string{"Here is the report.\nMEDIA:/work/report.pdf\n"}, "Here is the report.\n|done|", []string{"/work/report.pdf"}},
		{[]string{"MEDIA: /work/a.png"}, "|done|", []string{"/work/a.png"}},
		{[]string{"Two files:\n  `MEDIA:a.txt`\nMEDIA:\"b c.txt\"\nbye"}, "Two files:\nbye|done|", []string{"a.txt", "b c.txt"}},
		{[]string{"Let me look.\n", "MEDIA:/tmp/x\nDone."}, "Let me look.\n|tool|Done.|done|", []string{"/tmp/x"}},
		{[]string{"MEDIUM rare\nME\nMEDIA is a word; MEDIA:/x stays\n"}, "MEDIUM rare\nME\nMEDIA is a word; MEDIA:/x stays\n|done|", nil},
		{[]string{"no lines at all"}, "no lines at all|done|", nil},
	}
	for _, tt := range tests {
		full := strings.Join(tt.steps, "")
		// Every way of cutting each step in two, and one rune at a time.
		for cut := 0; cut <= len(full); cut++ {
			for _, runes := range []bool{false, true} {
				var log sinkLog
				a := &attachLines{next: &log}
				for i, step := range tt.steps {
					for _, d := range deltas(step, cut, runes) {
						a.Event(agent.Event{Kind: agent.EventText, Text: d})
					}
					if i < len(tt.steps)-1 {
						a.Event(agent.Event{Kind: agent.EventToolStarted})
					}
				}
				a.Event(agent.Event{Kind: agent.EventDone})
				if log.text.String() != tt.shown || !slices.Equal(a.Paths(), tt.attaching) {
					t.Fatalf("%q cut at %d (runes %v): shown %q attaching %q; want %q attaching %q", tt.steps, cut, runes, log.text.String(), a.Paths(), tt.shown, tt.attaching)
				}
			}
		}
	}
}

// deltas cuts s at byte cut (clamped), or into single runes.
func deltas(s string, cut int, runes bool) []string {
	if runes {
		var out []string
		for _, r := range s {
			out = append(out, string(r))
		}
		return out
	}
	cut = min(cut, len(s))
	return []string{s[:cut], s[cut:]}
}
