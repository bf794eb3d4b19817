package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/safety"
)

// newPolicy builds the approval policy from the approvals section. In
// smart mode the main model judges commands first.
func newPolicy(l *config.Loaded, yolo, interactive bool, prompter safety.Prompter, judge safety.Judge, log *slog.Logger) *safety.Policy {
	c := l.Config
	home := l.Paths.Home
	return &safety.Policy{
		Judge:          judge,
		Mode:           safety.Mode(c.Approvals.Mode),
		Yolo:           yolo,
		Deny:           c.Approvals.Deny,
		Allowlist:      c.CommandAllowlist,
		Interactive:    interactive && prompter != nil,
		NonInteractive: string(c.Approvals.NonInteractive),
		Timeout:        c.Approvals.Timeout,
		Prompter:       prompter,
		OnAlways:       func(rule string) error { return appendAllowlist(home, rule) },
		Logger:         log,
	}
}

// appendAllowlist adds rule to command_allowlist in config.yaml, keeping
// the rest of the file as it is.
func appendAllowlist(home, rule string) error {
	l, err := config.Load(config.LoadOptions{Home: home, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		return err
	}
	list := l.Config.CommandAllowlist
	if slices.Contains(list, rule) {
		return nil
	}
	// A JSON array is a YAML flow sequence, quoted safely whatever the
	// rule's characters.
	flow, err := json.Marshal(append(slices.Clone(list), rule))
	if err != nil {
		return err
	}
	_, err = config.Set(home, "command_allowlist", string(flow))
	return err
}

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

// now is the current time in the configured time zone.
func now(l *config.Loaded) time.Time {
	t := time.Now()
	if tz := l.Config.Timezone; tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return t.In(loc)
		}
	}
	return t
}
