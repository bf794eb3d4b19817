package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/slash"
)

// drainGrace is how long a chat that is quitting waits for background
// work: a review saving memory or a skill, the facts of the last session.
const drainGrace = 60 * time.Second

// slashSkill turns "/skill-name instruction" into the user message that
// runs the skill: its text, directory and files, and the instruction. The
// skill goes in a user message, not the system prompt, so the prompt's
// cached prefix holds.
func slashSkill(h *app.App, name, instruction string) (string, error) {
	msg, err := h.Tools.Skills.Invocation(name, instruction)
	if err != nil {
		return "", fmt.Errorf("/%s: %v", name, err)
	}
	return msg, nil
}

// queryText is the message -q sends: "/name instruction" runs the skill
// name, as in the chat; hermes's other commands act on a conversation, so
// they are refused with where they work. A slash word that is neither
// (a path, "/tmp is full") is sent as it is.
func queryText(h *app.App, query string) (string, error) {
	name, args, ok := slash.Parse(query)
	if !ok {
		return query, nil
	}
	c, err := h.Slash().Lookup(slash.CLI, name)
	if err != nil {
		return query, nil
	}
	if !c.Skill {
		return "", fmt.Errorf("-q: /%s is a command of the conversation; run `hermes chat` and type it there (with -q only skills run as /name, see `hermes skills list`)", c.Name)
	}
	return slashSkill(h, c.Name, args)
}

// printSkills answers /skills: every skill, with what it is for.
func printSkills(out io.Writer, commands slash.Registry) {
	n := 0
	for _, c := range commands.Commands(slash.CLI) {
		if c.Skill {
			fmt.Fprintf(out, "%s — %s\n", c.Usage(), c.Description)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(out, "no skills yet: hermes writes them as it learns, or hermes skills install adds some")
	}
}

// drain gives running background work a moment to finish before the chat
// exits, saying so when there is some.
func drain(w io.Writer, h *app.App) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if h.Engine.Drain(ctx) == nil {
		return
	}
	fmt.Fprintln(w, "(finishing a background review of what to remember…)")
	ctx, cancel2 := context.WithTimeout(context.Background(), drainGrace)
	defer cancel2()
	h.Engine.Drain(ctx)
}

// printUsage answers /usage: the session's token totals, how much of the
// input was read from the provider's prompt cache, and the estimated cost.
func printUsage(ctx context.Context, out io.Writer, h *app.App, sessionID string) {
	fmt.Fprintln(out, h.UsageReport(ctx, sessionID))
}

// compressNow answers /compress [focus]: it compresses the session now and
// returns the child session the chat continues in ("" when nothing
// changed).
func compressNow(ctx context.Context, out io.Writer, h *app.App, sessionID, focus string) string {
	if sessionID == "" {
		fmt.Fprintln(out, "nothing to compress yet")
		return ""
	}
	res, err := h.Engine.Compress(ctx, sessionID, focus)
	if err != nil {
		fmt.Fprintln(out, "compress:", err)
		return ""
	}
	note := ""
	if res.Fallback {
		note = " (the summarizer failed; the summary was built without it)"
	}
	fmt.Fprintf(out, "compressed ~%d → ~%d tokens; continuing in session %s%s\n", res.Before, res.After, res.SessionID, note)
	return res.SessionID
}
