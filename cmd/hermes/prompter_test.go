package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

func TestConsolePrompterAsksUntilAnswered(t *testing.T) {
	cases := []struct {
		input string
		want  safety.Answer
	}{
		{"o\n", safety.Once},
		{"maybe\nS\n", safety.Session},
		{"always\n", safety.Always},
		{"\n", safety.Deny},
	}
	for _, c := range cases {
		var out strings.Builder
		p := &consolePrompter{out: &out, lines: newLineSource(strings.NewReader(c.input))}
		got, err := p.Prompt(context.Background(), safety.Request{Command: "rm -rf build",
			Verdict: shell.Verdict{Level: shell.Dangerous, Rule: "recursive_delete", Description: "recursive delete"}})
		if err != nil || got != c.want {
			t.Errorf("input %q: answer %v, %v; want %v", c.input, got, err, c.want)
		}
		if !strings.Contains(out.String(), "rm -rf build") || !strings.Contains(out.String(), "recursive delete") {
			t.Errorf("the question does not show the command and the rule:\n%s", out.String())
		}
	}
	// End of input is a denial, not a hang.
	p := &consolePrompter{out: io.Discard, lines: newLineSource(strings.NewReader(""))}
	if got, err := p.Prompt(context.Background(), safety.Request{Command: "x"}); got != safety.Deny || err == nil {
		t.Errorf("at end of input: %v, %v", got, err)
	}
}

// The prompt cannot be made to lie: a command's escape sequences are
// shown escaped, not obeyed, and however long the harmless part, the part
// that needs approval is on the screen.
func TestConsolePrompterShowsWhatRuns(t *testing.T) {
	padding := "echo " + strings.Repeat("all good ", 80) + "; "
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"rm -rf /srv/data\x1b[2K\r\x1b[1Als -la /tmp", []string{`rm -rf /srv/data\x1b[2K\r\x1b[1Als -la /tmp`}},
		{padding + "rm -rf /srv/data", []string{"rm -rf /srv/data", "characters cut"}},
		{padding + "echo cm0gLXJmIC9zcnYvZGF0YQ== | base64 -d | sh", []string{"which runs: rm -rf /srv/data"}},
	} {
		var out strings.Builder
		p := &consolePrompter{out: &out, lines: newLineSource(strings.NewReader("d\n"))}
		r := safety.Request{Command: tc.cmd, Dir: "/srv", Verdict: shell.Classify(tc.cmd)}
		if _, err := p.Prompt(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		shown := out.String()
		if strings.ContainsAny(shown, "\x1b\r") {
			t.Errorf("the prompt passes control characters to the terminal: %q", shown)
		}
		for _, want := range append(tc.want, "in /srv") {
			if !strings.Contains(shown, want) {
				t.Errorf("the prompt for %q does not show %q:\n%s", tc.cmd, want, shown)
			}
		}
	}
}
