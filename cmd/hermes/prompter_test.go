package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/safety"
	"github.com/hermes-go/hermes/safety/shell"
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
