package gateway

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/agent"
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

// How a reply is cut into deltas changes neither what is shown nor what
// is attached, and no attachment line is shown.
func FuzzAttachLines(f *testing.F) {
	f.Add("Here.\nMEDIA:/a.png\nmore", 3)
	f.Add("  `MEDIA: b`\r\nME\nMEDIA", 1)
	f.Add("MEDIA:", 0)
	f.Fuzz(func(t *testing.T, text string, cut int) {
		if !utf8.ValidString(text) {
			t.Skip("the model's text is UTF-8")
		}
		run := func(parts []string) (string, []string) {
			var log sinkLog
			a := &attachLines{next: &log}
			for _, p := range parts {
				a.Event(agent.Event{Kind: agent.EventText, Text: p})
			}
			a.Event(agent.Event{Kind: agent.EventDone})
			return log.text.String(), a.Paths()
		}
		if cut < 0 {
			cut = -cut
		}
		whole, wholePaths := run([]string{text})
		cutShown, cutPaths := run(deltas(text, cut%(len(text)+1), false))
		runeShown, runePaths := run(deltas(text, 0, true))
		if cutShown != whole || runeShown != whole || !slices.Equal(cutPaths, wholePaths) || !slices.Equal(runePaths, wholePaths) {
			t.Fatalf("%q: whole %q %q, cut at %d %q %q, by rune %q %q", text, whole, wholePaths, cut, cutShown, cutPaths, runeShown, runePaths)
		}
		for _, line := range strings.Split(strings.TrimSuffix(whole, "|done|"), "\n") {
			if _, ok := attachment(line); ok {
				t.Fatalf("%q: the line %q is shown", text, line)
			}
		}
	})
}
