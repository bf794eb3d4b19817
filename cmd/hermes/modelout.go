package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"

	"github.com/hermes-go/hermes/internal/llm"
)

// callResult is the --json shape of `hermes model call`. Its field names are
// a contract: scripts and later checks read them.
type callResult struct {
	Text            string     `json:"text"`
	Reasoning       string     `json:"reasoning"`
	ToolCalls       []callTool `json:"tool_calls"`
	FinishReason    string     `json:"finish_reason"`
	RawFinishReason string     `json:"raw_finish_reason"`
	Usage           callUsage  `json:"usage"`
	Model           string     `json:"model"`
}

type callTool struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type callUsage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// callFailure is the --json shape of a failed call.
type callFailure struct {
	Error callError `json:"error"`
}

type callError struct {
	Kind      string `json:"kind"`
	Status    int    `json:"status"`
	Type      string `json:"type"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

func newCallResult(r *llm.Response) callResult {
	out := callResult{
		Text:            r.Text(),
		Reasoning:       r.Message.Reasoning,
		ToolCalls:       []callTool{},
		FinishReason:    string(r.FinishReason),
		RawFinishReason: r.RawFinishReason,
		Usage: callUsage{
			InputTokens:      r.Usage.InputTokens,
			OutputTokens:     r.Usage.OutputTokens,
			CacheReadTokens:  r.Usage.CacheReadTokens,
			CacheWriteTokens: r.Usage.CacheWriteTokens,
			ReasoningTokens:  r.Usage.ReasoningTokens,
			TotalTokens:      cmp.Or(r.Usage.TotalTokens, r.Usage.InputTokens+r.Usage.OutputTokens),
		},
		Model: r.Model,
	}
	for _, c := range r.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, callTool{ID: c.ID, Name: c.Name, Arguments: argumentsValue(c.Arguments)})
	}
	return out
}

// argumentsValue returns the arguments as a JSON value: the parsed object
// when the model produced valid JSON, else the raw text as a JSON string so
// that nothing the model said is lost.
func argumentsValue(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	quoted, _ := json.Marshal(args)
	return quoted
}

func newCallFailure(err error) callFailure {
	var e *llm.Error
	if errors.As(err, &e) {
		return callFailure{Error: callError{Kind: string(e.Kind), Status: e.Status, Type: e.Type, Code: e.Code,
			Message: e.Message, RequestID: e.RequestID}}
	}
	kind := "network"
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		kind = "canceled"
	}
	return callFailure{Error: callError{Kind: kind, Message: err.Error()}}
}
