package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/safety"
)

// hookAsker asks the person at the terminal whether a configured hook may
// run, reading the answer from the same line source the chat reads from.
// Only a chat or hermes hooks test on a terminal makes one: a model's
// commands run without a terminal, so they can never consent for it.
type hookAsker struct {
	out   io.Writer
	lines *lineSource
}

func (p *hookAsker) AskHook(ctx context.Context, h hooks.Hook) (bool, error) {
	fmt.Fprintf(p.out, "\n  ⚙ config.yaml has a %s hook that has not run here before:\n    %s\n", h.Event, showArgv(h.Command))
	if len(h.Tools) > 0 {
		fmt.Fprintf(p.out, "    for the tools %s\n", safety.Escape(strings.Join(h.Tools, ", ")))
	}
	fmt.Fprintf(p.out, "    %s\n", hookPower(h.Event))
	for {
		fmt.Fprint(p.out, "    Allow it from now on? [y]es, [n]o: ")
		line, err := p.lines.read(ctx)
		if err != nil {
			fmt.Fprintln(p.out)
			return false, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		case "n", "no", "":
			return false, nil
		}
	}
}

// hookPower says what a hook of event can do.
func hookPower(e hooks.Event) string {
	switch e {
	case hooks.PreToolCall:
		return "It reads each tool call (secrets redacted) and may block it or change its arguments."
	case hooks.PreLLMCall:
		return "It reads each message to the model (secrets redacted) and may add to it."
	}
	return "It reads what happened (secrets redacted); its answer is not used."
}

// showArgv shows a command's argv safely: each argument escaped and quoted
// when it holds spaces or quotes.
func showArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		a = safety.Escape(a)
		if a == "" || strings.ContainsAny(a, " \t'\"") {
			a = fmt.Sprintf("%q", a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
