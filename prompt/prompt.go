// Package prompt builds the system prompt. It is built once per session and
// kept unchanged for the session's life, so providers can cache the prefix
// of every request; anything that changes within a day stays out of it.
package prompt

import (
	"strings"
	"time"
)

// Identity is who hermes says it is when the user has written no persona.
const Identity = `You are hermes, a capable assistant running on the user's own machine. ` +
	`You get things done by calling the tools you are given: the user's shell, files, scripts and services. ` +
	`Be direct and brief; show results, not plans.`

// Guidance is how to use tools well, the same for every session.
const Guidance = `# Using tools
- Prefer doing over describing: when a tool can answer, call it instead of guessing.
- Every tool result is JSON: {"status":"ok","data":...} or {"status":"error","error_code":...,"message":...}. Read error messages; they say what to change.
- Independent read-only calls can be made together in one reply; they run in parallel.
- Do not repeat a call with the same arguments: the result will not change.
- Commands that can destroy data need the user's approval; if one is denied, do not retry it: ask the user or choose a safer way.
- When the task is done, answer in plain text without calling tools.`

// Options are the parts of a system prompt.
type Options struct {
	// Identity replaces the built-in identity (SOUL.md).
	Identity string
	// Now gives the date; the prompt holds the date only, not the time, so
	// the prefix stays cacheable all day.
	Now time.Time
}

// Build returns the system prompt: identity and tool guidance first (the
// part that never changes), the date last.
func Build(o Options) string {
	id := strings.TrimSpace(o.Identity)
	if id == "" {
		id = Identity
	}
	var b strings.Builder
	b.WriteString(id)
	b.WriteString("\n\n")
	b.WriteString(Guidance)
	if !o.Now.IsZero() {
		b.WriteString("\n\nToday is ")
		b.WriteString(o.Now.Format("Monday, 2 January 2006"))
		b.WriteString(".")
	}
	return b.String()
}
