package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-go/hermes/internal/safety"
)

// Prompter asks the person at the interface about a dangerous command in
// a modal that takes the whole input area until it is answered.
type Prompter struct{ send func(tea.Msg) }

// approvalMsg opens the modal; the answer goes to reply.
type approvalMsg struct {
	req   safety.Request
	reply chan safety.Answer
}

// Prompt implements safety.Prompter. A cancelled ctx (Ctrl-C) denies.
func (p *Prompter) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	reply := make(chan safety.Answer, 1)
	p.send(approvalMsg{req: r, reply: reply})
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		p.send(approvalMsg{}) // closes the modal
		return safety.Deny, ctx.Err()
	}
}

// approvalKey maps a key of the modal to its answer, as the line
// prompter's one-letter answers; ok is false for other keys.
func approvalKey(k string) (a safety.Answer, ok bool) {
	switch k {
	case "o", "y":
		return safety.Once, true
	case "s":
		return safety.Session, true
	case "a":
		return safety.Always, true
	case "d", "n", "esc":
		return safety.Deny, true
	}
	return safety.Deny, false
}

// modalLines draws the request: the whole command, escaped and wrapped,
// never cut, with what the rule matched and why it asks.
func modalLines(r safety.Request, width int) []string {
	w := max(width-4, 10)
	bar := sgrFail + "┃" + sgrReset + " "
	var ls []string
	add := func(s string) {
		for _, l := range strings.Split(ansi.Hardwrap(s, w, true), "\n") {
			ls = append(ls, bar+l)
		}
	}
	add(sgrFail + "⚠ approval needed" + sgrReset + ": " + safety.Escape(r.Verdict.Description) + " (" + safety.Escape(string(r.Verdict.Level)) + ")")
	if r.Path != "" {
		add("write " + safety.Escape(r.Path))
	} else {
		command, match := r.Display(1 << 30)
		add("$ " + command)
		if match != "" {
			add("which runs: " + match)
		}
	}
	if r.Dir != "" {
		add("in " + safety.Escape(r.Dir))
	}
	add("Run it? [o]nce  [s]ession  [a]lways  [d]eny")
	return ls
}
