// Package hooks runs the operator's commands at points of hermes's life:
// before and after a tool call, before the model is called, when a
// session starts or ends, when a turn ends and when a result is
// delivered. A hook is an argv list from config.yaml, never a shell line
// hermes builds, so nothing in a payload can become part of a command. It
// gets one JSON object on stdin (the event and what it carries, with
// secret values redacted) and may answer one JSON object on stdout: a
// pre_tool_call hook may block the call or rewrite its arguments, a
// pre_llm_call hook may add context. A hook runs only once the person who
// configured it consented to it from a terminal (see Consents).
package hooks

import (
	"encoding/json"
	"path"
	"time"
)

// Event names a point where hooks run; the names are Hermes's.
type Event string

// The events hooks run at.
const (
	PreToolCall    Event = "pre_tool_call"
	PostToolCall   Event = "post_tool_call"
	PreLLMCall     Event = "pre_llm_call"
	OnSessionStart Event = "on_session_start"
	OnSessionEnd   Event = "on_session_end"
	OnTurnEnd      Event = "on_turn_end"
	OnDelivery     Event = "on_delivery"
)

// Events lists every event in the order hermes meets them.
func Events() []Event {
	return []Event{OnSessionStart, PreLLMCall, PreToolCall, PostToolCall, OnTurnEnd, OnDelivery, OnSessionEnd}
}

// Known reports whether e is one of Events.
func Known(e Event) bool {
	for _, k := range Events() {
		if k == e {
			return true
		}
	}
	return false
}

// ForTools reports whether e concerns one tool call, so that a hook of it
// may name the tools it runs for.
func ForTools(e Event) bool { return e == PreToolCall || e == PostToolCall }

// DefaultTimeout bounds a hook that sets no timeout.
const DefaultTimeout = 10 * time.Second

// MaxOutput bounds what hermes reads of a hook's stdout; a longer answer
// is a failed hook, so a runaway command cannot fill memory or the
// model's context.
const MaxOutput = 64 << 10

// Hook is one configured command.
type Hook struct {
	// Event is when it runs.
	Event Event
	// Command is the program and its arguments, run without a shell.
	Command []string
	// Tools, for tool events, are the tool names or path.Match globs it
	// runs for; empty means every tool.
	Tools []string
	// Timeout stops a hook that runs longer; zero means DefaultTimeout.
	Timeout time.Duration
	// FailOpen lets a tool call run when its pre_tool_call hook fails
	// (crash, timeout, bad answer). By default such a call is blocked:
	// a guard that cannot answer has not said yes.
	FailOpen bool
}

// Matches reports whether h runs for the tool named tool; hooks of other
// events match every call.
func (h Hook) Matches(tool string) bool {
	if len(h.Tools) == 0 || !ForTools(h.Event) {
		return true
	}
	for _, p := range h.Tools {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}

// Payload is what a hook reads on stdin. Only the fields of its event are
// set.
type Payload struct {
	Event     Event  `json:"event"`
	SessionID string `json:"session_id,omitempty"`
	Source    string `json:"source,omitempty"`
	// Tool and Arguments are the call, for tool events.
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is the envelope the model reads, for post_tool_call.
	Result json.RawMessage `json:"result,omitempty"`
	// Message is the user's message, for pre_llm_call.
	Message string `json:"message,omitempty"`
	// Final and Stopped are the turn's answer and why it ended, for
	// on_turn_end.
	Final   string `json:"final,omitempty"`
	Stopped string `json:"stopped,omitempty"`
	// Reason is why a session ended, for on_session_end.
	Reason string `json:"reason,omitempty"`
	// Job, Text, Delivered and Error describe a delivery: the job (or
	// other sender), the text sent, the target that took it (empty when
	// none did) and what went wrong.
	Job       string `json:"job,omitempty"`
	Text      string `json:"text,omitempty"`
	Delivered string `json:"delivered,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Answer is what a hook may print on stdout; every field is optional and
// an empty stdout is no answer.
type Answer struct {
	// Block, for pre_tool_call, stops the call; the model is told the
	// reason.
	Block string `json:"block,omitempty"`
	// Arguments, for pre_tool_call, replace the call's arguments. They
	// are checked against the tool's schema, and the tool's own approval
	// judges them, as if the model had sent them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Context, for pre_llm_call, is added to the user's message for the
	// model, marked as coming from a hook.
	Context string `json:"context,omitempty"`
}
