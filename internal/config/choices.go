package config

import "strings"

// The settings below accept one of a few words; each type checks its word
// when the file is read, so a typo is reported with its line rather than
// when the feature is first used.

// oneOf sets *dst to the word in text when it is one of accepted (the
// empty word included when emptyOK), and otherwise returns the message
// every such setting gives.
func oneOf[T ~string](dst *T, text []byte, emptyOK bool, accepted ...T) error {
	v := T(text)
	if v == "" && emptyOK {
		*dst = v
		return nil
	}
	for _, a := range accepted {
		if v == a {
			*dst = v
			return nil
		}
	}
	words := make([]string, len(accepted))
	for i, a := range accepted {
		words[i] = string(a)
	}
	return problem("is not accepted; use one of " + strings.Join(words, ", "))
}

// ApprovalMode is how dangerous commands are approved.
type ApprovalMode string

// The approval modes.
const (
	ApprovalManual ApprovalMode = "manual"
	ApprovalSmart  ApprovalMode = "smart"
	ApprovalOff    ApprovalMode = "off"
)

// UnmarshalText accepts the three approval modes.
func (m *ApprovalMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, false, ApprovalManual, ApprovalSmart, ApprovalOff)
}

// NonInteractive is what happens to a dangerous command nobody can approve.
type NonInteractive string

// The non-interactive approval policies.
const (
	NonInteractiveDeny  NonInteractive = "deny"
	NonInteractiveAllow NonInteractive = "allow"
)

// UnmarshalText accepts deny or allow (or approve, as Hermes Agent
// writes allow).
func (n *NonInteractive) UnmarshalText(text []byte) error {
	if string(text) == "approve" { // Hermes Agent's word for allow
		*n = NonInteractiveAllow
		return nil
	}
	return oneOf(n, text, false, NonInteractiveDeny, NonInteractiveAllow)
}

// SearchBackend is the web search service.
type SearchBackend string

// UnmarshalText accepts the three search backends, or nothing.
func (b *SearchBackend) UnmarshalText(text []byte) error {
	return oneOf(b, text, true, "searxng", "brave", "tavily")
}

// TerminalBackend is where the terminal tool runs commands.
type TerminalBackend string

// UnmarshalText accepts local or ssh, or nothing (local).
func (b *TerminalBackend) UnmarshalText(text []byte) error {
	return oneOf(b, text, true, "local", "ssh")
}

// CacheTTL is how long Anthropic keeps a cached prompt prefix: 5m (the
// default, refreshed on every hit) or 1h, which costs more to write and
// suits sessions with long pauses between turns.
type CacheTTL string

// UnmarshalText accepts 5m or 1h.
func (c *CacheTTL) UnmarshalText(text []byte) error {
	return oneOf(c, text, true, "5m", "1h")
}

// SessionType is whether a scheduled job's runs share one session.
type SessionType string

// UnmarshalText accepts new or continue.
func (s *SessionType) UnmarshalText(text []byte) error {
	return oneOf(s, text, true, "new", "continue")
}

// CatchUp is what a scheduled job does about fires it missed.
type CatchUp string

// UnmarshalText accepts once, skip or all.
func (c *CatchUp) UnmarshalText(text []byte) error {
	return oneOf(c, text, true, "once", "skip", "all")
}

// JobMemory is whether a scheduled job's runs feed long-term memory.
type JobMemory string

// UnmarshalText accepts extract or off.
func (m *JobMemory) UnmarshalText(text []byte) error {
	return oneOf(m, text, true, "extract", "off")
}
