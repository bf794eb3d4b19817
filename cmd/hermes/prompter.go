package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-go/hermes/safety"
)

// consolePrompter asks the person at the terminal, reading the answer from
// the same line source the chat reads from.
type consolePrompter struct {
	out   io.Writer
	lines *lineSource
}

func (p *consolePrompter) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	fmt.Fprintf(p.out, "\n  ⚠ %s: %s\n    %s\n", r.Verdict.Description, r.Verdict.Level, oneLine(r.Command, 300))
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
