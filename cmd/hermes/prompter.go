package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/safety"
)

// promptWidth is how much of a command the approval prompt shows on its
// line; the part that triggered the rule is shown whole whatever its
// length (see safety.Request.Display).
const promptWidth = 300

// consolePrompter asks the person at the terminal, reading the answer from
// the same line source the chat reads from.
type consolePrompter struct {
	out   io.Writer
	lines *lineSource
}

func (p *consolePrompter) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	command, match := r.Display(promptWidth)
	fmt.Fprintf(p.out, "\n  ⚠ %s: %s\n    %s\n", safety.Escape(r.Verdict.Description), r.Verdict.Level, command)
	if match != "" {
		fmt.Fprintf(p.out, "    which runs: %s\n", match)
	}
	if r.Dir != "" {
		fmt.Fprintf(p.out, "    in %s\n", safety.Escape(r.Dir))
	}
	for {
		fmt.Fprint(p.out, "    Run it? [o]nce, [s]ession, [a]lways, [d]eny: ")
		line, err := p.lines.read(ctx)
		if err != nil {
			fmt.Fprintln(p.out)
			return safety.Deny, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "o", "once", "y", "yes":
			return safety.Once, nil
		case "s", "session":
			return safety.Session, nil
		case "a", "always":
			return safety.Always, nil
		case "d", "deny", "n", "no", "":
			return safety.Deny, nil
		}
	}
}
