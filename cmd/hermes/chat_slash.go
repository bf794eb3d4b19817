package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// reviewGrace is how long a chat that is quitting waits for a background
// review still saving memory or a skill.
const reviewGrace = 30 * time.Second

// slashSkill turns "/skill-name instruction" into the user message that
// runs the skill: its text, directory and files, and the instruction. The
// skill goes in a user message, not the system prompt, so the prompt's
// cached prefix holds.
func slashSkill(rt *wiring, text string) (string, error) {
	name, instruction, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	msg, err := rt.tools.skills.Invocation(name, instruction)
	if err != nil {
		names := rt.tools.skills.Names()
		return "", fmt.Errorf("/%s is not a command or a skill (%v); /help lists the commands, and the skills are: %s",
			name, err, strings.Join(names, ", "))
	}
	return msg, nil
}

// waitReviews gives running background reviews a moment to finish before
// the chat exits, saying so when there is one.
func waitReviews(w io.Writer, rt *wiring) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if rt.engine.WaitReviews(ctx) == nil {
		return
	}
	fmt.Fprintln(w, "(finishing a background review of what to remember…)")
	ctx, cancel2 := context.WithTimeout(context.Background(), reviewGrace)
	defer cancel2()
	rt.engine.WaitReviews(ctx)
}

// printUsage answers /usage: the session's token totals, how much of the
// input was read from the provider's prompt cache, and the estimated cost.
func printUsage(ctx context.Context, out io.Writer, rt *wiring, sessionID string) {
	if sessionID == "" {
		fmt.Fprintln(out, "no session yet: usage is counted from your first message")
		return
	}
	s, err := rt.store.Get(ctx, sessionID)
	if err != nil {
		fmt.Fprintln(out, "usage:", err)
		return
	}
	cached := 0.0
	if s.InputTokens > 0 {
		cached = 100 * float64(s.CacheReadTokens) / float64(s.InputTokens)
	}
	fmt.Fprintf(out, "session %s\n  input    %d tokens (%d read from cache, %.0f%%; %d written to cache)\n  output   %d tokens (%d reasoning)\n  cost     $%.4f estimated\n",
		s.ID, s.InputTokens, s.CacheReadTokens, cached, s.CacheWriteTokens, s.OutputTokens, s.ReasoningTokens, s.CostUSD)
}

// compressNow answers /compress [focus]: it compresses the session now and
// returns the child session the chat continues in ("" when nothing
// changed).
func compressNow(ctx context.Context, out io.Writer, rt *wiring, sessionID, focus string) string {
	if sessionID == "" {
		fmt.Fprintln(out, "nothing to compress yet")
		return ""
	}
	res, err := rt.engine.Compress(ctx, sessionID, focus)
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
