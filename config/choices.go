package config

// The settings below accept one of a few words; each type checks its word
// when the file is read, so a typo is reported with its line rather than
// when the feature is first used.

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
	switch v := ApprovalMode(text); v {
	case ApprovalManual, ApprovalSmart, ApprovalOff:
		*m = v
		return nil
	}
	return problem("is not accepted; use one of manual, smart, off")
}

// NonInteractive is what happens to a dangerous command nobody can approve.
type NonInteractive string

// The non-interactive approval policies.
const (
	NonInteractiveDeny  NonInteractive = "deny"
	NonInteractiveAllow NonInteractive = "allow"
)

// UnmarshalText accepts deny or allow.
func (n *NonInteractive) UnmarshalText(text []byte) error {
	switch v := NonInteractive(text); v {
	case NonInteractiveDeny, NonInteractiveAllow:
		*n = v
		return nil
	}
	return problem("is not accepted; use one of deny, allow")
}

// SearchBackend is the web search service.
type SearchBackend string

// UnmarshalText accepts the three search backends, or nothing.
func (b *SearchBackend) UnmarshalText(text []byte) error {
	switch v := SearchBackend(text); v {
	case "", "searxng", "brave", "tavily":
		*b = v
		return nil
	}
	return problem("is not accepted; use one of searxng, brave, tavily")
}

// TerminalBackend is where the terminal tool runs commands.
type TerminalBackend string

// UnmarshalText accepts local or ssh, or nothing (local).
func (b *TerminalBackend) UnmarshalText(text []byte) error {
	switch v := TerminalBackend(text); v {
	case "", "local", "ssh":
		*b = v
		return nil
	}
	return problem("is not accepted; use one of local, ssh")
}
