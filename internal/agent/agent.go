// Package agent runs one turn of a conversation: it calls the model, runs
// the tools the model asks for, feeds their results back, and repeats until
// the model answers in text or a guard stops it. It keeps the protocol
// rules every provider enforces (user and assistant alternate; every tool
// call is answered exactly once, in order, before the next assistant
// message) and hands every message to a Recorder the moment it exists, so
// a crash at any point leaves a consistent, resumable conversation.
package agent

import (
	"context"
	"log/slog"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// DefaultMaxTurns is the iteration budget when Config.MaxTurns is zero.
const DefaultMaxTurns = 90

// Dispatcher runs a batch of tool calls and returns one outcome per call,
// in call order (tool.Dispatcher).
type Dispatcher interface {
	Run(ctx context.Context, calls []llm.ToolCall, obs tool.Observer) []tool.Outcome
}

// Resolver maps a model's tool name, possibly misspelled, to the canonical
// name of a tool that exists (tool.Registry).
type Resolver interface {
	Resolve(name string) (tool.Tool, string, bool)
}

// Recorder keeps the conversation. Record gets each new message as soon as
// it is produced: an assistant message with tool calls before any of the
// calls runs, then their results in call order as they finish, several at
// once when several are known (a store writes each Record in one
// transaction). Usage gets each model call's token counts.
type Recorder interface {
	Record(ctx context.Context, msgs []Recorded) error
	Usage(ctx context.Context, model string, u llm.Usage) error
}

// Recorded is a message with what the store keeps beside it.
type Recorded struct {
	Message      llm.Message
	FinishReason string
	// Usage, on a model reply, is what the call that produced it used;
	// the Recorder stores it with the message, in one write. A call
	// whose reply is never recorded has its usage given to Usage.
	Usage *CallUsage
}

// CallUsage is one model call's usage and the model that reported it.
type CallUsage struct {
	Model string
	Usage llm.Usage
}

// Config is what one turn needs. Provider, Dispatcher and Resolver are
// required; everything else has a default.
type Config struct {
	Provider   llm.Provider
	Model      string
	Tools      []llm.ToolSpec
	Dispatcher Dispatcher
	Resolver   Resolver
	Recorder   Recorder
	// Wire, when set, keeps the wire encoding of the conversation and
	// tools between this turn's model calls and the session's later
	// turns (see llm.WireCache); nil keeps it for this turn only.
	Wire *llm.WireCache
	// Compactor, when set, keeps the conversation inside the context
	// window (see Compactor).
	Compactor Compactor
	// System is the system prompt, sent first on every call.
	System string
	// MaxTurns bounds the model calls that may end in tool calls; when it
	// is reached, one last call without tools asks for a summary.
	MaxTurns  int
	MaxTokens int
	// Reasoning is the reasoning effort asked of the model (see
	// llm.Request.ReasoningEffort); empty asks none.
	Reasoning string
	// SessionID, Source, Agent, User, Tenant, Workdir and Approver
	// reach tools through tool.Invocation.
	SessionID string
	Source    string
	Agent     string
	User      string
	Tenant    string
	Workdir   string
	Approver  tool.Approver
	// BeforeWrite reaches the file tools through tool.Invocation: the
	// turn's checkpoint (nil without checkpoints).
	BeforeWrite func(path string) error
	Logger      *slog.Logger
}

// Stop says why a turn ended.
type Stop string

// The reasons a turn ends.
const (
	StopDone         Stop = "done"
	StopMaxTurns     Stop = "max_turns"
	StopRepeatGuard  Stop = "repeat_guard"
	StopInvalidCalls Stop = "invalid_tool_calls"
	StopTruncated    Stop = "truncated"
	StopInterrupted  Stop = "interrupted"
	StopError        Stop = "error"
)

// CallSummary is one tool call of the turn as reported to the caller.
type CallSummary struct {
	Name   string      `json:"name"`
	Status tool.Status `json:"status"`
	Code   tool.Code   `json:"error_code,omitempty"`
}

// Result is the outcome of a turn.
type Result struct {
	// Final is the text shown to the user as the turn's answer. When a
	// guard stopped the turn it is the text written along the way followed
	// by Note.
	Final string `json:"final"`
	// Note says why a guard stopped the turn; empty when the model ended
	// it.
	Note       string        `json:"note,omitempty"`
	Iterations int           `json:"iterations"`
	ToolCalls  []CallSummary `json:"tool_calls"`
	// Usage sums every model call of the turn.
	Usage   llm.Usage `json:"usage"`
	Stopped Stop      `json:"stopped_reason"`
	// Err is the error that ended the turn, for StopError and
	// StopInterrupted.
	Err error `json:"-"`
}

func addUsage(a *llm.Usage, b llm.Usage) {
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.TotalTokens += b.TotalTokens
}
