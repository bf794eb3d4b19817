package hermesagent

import (
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// jsonSentinel starts a content Hermes stored as JSON (a list of parts).
const jsonSentinel = "\x00json:"

// sessionOf is Hermes's session as hermes's, its counts left to the
// messages appended.
func sessionOf(h hermesSession) session.Session {
	return session.Session{
		ID: h.id, Source: sourceOf(h.source), Title: h.title, Model: h.model, ParentID: h.parent,
		StartedAt: epoch(h.started), EndedAt: epoch(h.ended), EndReason: h.endReason, Cwd: h.cwd,
		InputTokens: h.input, OutputTokens: h.output, CacheReadTokens: h.cacheRead, CacheWriteTokens: h.cacheWrite,
		ReasoningTokens: h.reasoning, CostUSD: h.cost,
	}
}

// sourceOf is Hermes's session source as hermes names it: its terminal
// UI is the CLI, its API server the API; the platforms keep their names.
func sourceOf(s string) string {
	switch s {
	case "", "tui", "unknown":
		return "cli"
	case "api_server":
		return "api"
	}
	return s
}

// messageOf is Hermes's message as hermes stores it.
func messageOf(h hermesMessage) session.Message {
	m := llm.Message{Role: llm.Role(h.role), ToolCallID: h.toolCallID, Reasoning: h.reasoning}
	if text := contentText(h.content); text != "" {
		m.Content = []llm.Part{llm.TextPart(text)}
	}
	if h.role == "tool" {
		m.Name = h.toolName
	}
	m.ToolCalls = toolCalls(h.toolCalls)
	return session.Message{Message: m, FinishReason: h.finishReason, Tokens: int(h.tokens), CreatedAt: epoch(h.timestamp)}
}

// contentText is a stored content as text: a list of parts Hermes kept as
// JSON gives its text parts, an image "[image]".
func contentText(c string) string {
	raw, ok := strings.CutPrefix(c, jsonSentinel)
	if !ok {
		return c
	}
	var parts []struct {
		Type, Text string
	}
	if json.Unmarshal([]byte(raw), &parts) != nil {
		var text string
		if json.Unmarshal([]byte(raw), &text) == nil {
			return text
		}
		return raw
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch {
		case p.Text != "":
			b.WriteString(p.Text)
		case strings.Contains(p.Type, "image"):
			b.WriteString("[image]")
		}
	}
	return b.String()
}

// toolCalls reads the tool_calls JSON of an assistant row: OpenAI's
// {id, call_id, type, function: {name, arguments}} (arguments a string
// of JSON, or on old rows an object), or the rare flat {name, arguments}.
func toolCalls(raw string) []llm.ToolCall {
	if raw == "" {
		return nil
	}
	var calls []struct {
		ID       string          `json:"id"`
		CallID   string          `json:"call_id"`
		Name     string          `json:"name"`
		Args     json.RawMessage `json:"arguments"`
		Function struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal([]byte(raw), &calls) != nil {
		return nil
	}
	out := make([]llm.ToolCall, 0, len(calls))
	for _, c := range calls {
		tc := llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: arguments(c.Function.Args)}
		if tc.ID == "" {
			tc.ID = c.CallID
		}
		if tc.Name == "" {
			tc.Name, tc.Arguments = c.Name, arguments(c.Args)
		}
		out = append(out, tc)
	}
	return out
}

// arguments is a call's arguments as the JSON text hermes keeps: a JSON
// string is unwrapped, an object kept as it is.
func arguments(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	return string(raw)
}
