package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// anthropicBody is the part of a Messages request the server reads.
type anthropicBody struct {
	Model     string          `json:"model"`
	Stream    bool            `json:"stream"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

// decodeAnthropic decodes a Messages request into r. Besides the checks
// every protocol shares, it enforces what the Messages API itself rejects:
// the anthropic-version header and max_tokens are required, roles are only
// user and assistant and must alternate (tool results travel in user
// turns), and content and text blocks must not be empty.
func decodeAnthropic(r *Request) ([]problem, error) {
	var b anthropicBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return nil, err
	}
	r.Model, r.Stream = b.Model, b.Stream
	var ps []problem
	if r.Header.Get("anthropic-version") == "" {
		ps = append(ps, problem{-1, "anthropic-version header is missing"})
	}
	if b.MaxTokens == nil {
		ps = append(ps, problem{-1, "max_tokens is missing"})
	}
	for _, t := range b.Tools {
		r.Tools = append(r.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	system, unknown, err := simpleContent(b.System)
	if err != nil || len(unknown) > 0 {
		ps = append(ps, problem{-1, "system must be a string or a list of text blocks"})
	}
	if len(system) > 0 {
		r.add(-1, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	if len(b.Messages) == 0 {
		ps = append(ps, problem{-1, "messages list is empty"})
	}
	prev := ""
	for i, m := range b.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			ps = append(ps, problem{i, fmt.Sprintf("unknown role %q (want user or assistant)", m.Role)})
			continue
		}
		if m.Role == prev {
			ps = append(ps, problem{i, fmt.Sprintf("two %s messages in a row", m.Role)})
		}
		prev = m.Role
		blocks, err := parseContent(m.Content)
		if err != nil {
			ps = append(ps, problem{i, err.Error()})
		}
		last := i == len(b.Messages)-1
		if len(blocks) == 0 && !(last && m.Role == "assistant") {
			ps = append(ps, problem{i, "content is empty"})
		}
		for _, bl := range blocks {
			if bl.Type == "text" && bl.Text == "" && !(last && m.Role == "assistant") {
				ps = append(ps, problem{i, "text content blocks must be non-empty"})
			}
		}
		if m.Role == "user" {
			ps = append(ps, decodeAnthropicUser(r, i, blocks)...)
		} else {
			ps = append(ps, decodeAnthropicAssistant(r, i, blocks)...)
		}
	}
	return ps, nil
}

// decodeAnthropicUser turns a user turn into canonical messages: one
// RoleTool message per tool_result block, and a RoleUser message for the
// text and images, kept in the order they came so that text put before the
// tool results shows up as the misplacement it is.
func decodeAnthropicUser(r *Request, i int, blocks []wirePart) []problem {
	var (
		ps   []problem
		user []llm.Part
	)
	flush := func() {
		if len(user) > 0 {
			r.add(i, llm.Message{Role: llm.RoleUser, Content: user})
			user = nil
		}
	}
	for _, bl := range blocks {
		if bl.Type == "tool_result" {
			flush()
			content, unknown, err := simpleContent(bl.Content)
			if err != nil || len(unknown) > 0 {
				ps = append(ps, problem{i, fmt.Sprintf("tool_result %q: content must be a string or text and image blocks", bl.ToolUseID)})
			}
			r.add(i, llm.Message{Role: llm.RoleTool, ToolCallID: bl.ToolUseID, Content: content})
			continue
		}
		if bl.Type != "text" && bl.Type != "image" {
			ps = append(ps, problem{i, fmt.Sprintf("unexpected %q block in a user message", bl.Type)})
			continue
		}
		p, _ := canonicalPart(bl)
		user = append(user, p)
	}
	flush()
	return ps
}

// decodeAnthropicAssistant turns an assistant turn into one canonical
// assistant message with its text, tool calls and thinking.
func decodeAnthropicAssistant(r *Request, i int, blocks []wirePart) []problem {
	var ps []problem
	m := llm.Message{Role: llm.RoleAssistant}
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			m.Content = append(m.Content, llm.TextPart(bl.Text))
		case "tool_use":
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: bl.ID, Name: bl.Name, Arguments: compactJSON(bl.Input)})
		case "thinking":
			m.Reasoning += bl.Thinking
			m.ReasoningBlocks = append(m.ReasoningBlocks, llm.ReasoningBlock{Type: "thinking", Text: bl.Thinking, Signature: bl.Signature})
		case "redacted_thinking":
			m.ReasoningBlocks = append(m.ReasoningBlocks, llm.ReasoningBlock{Type: "redacted_thinking", Data: bl.Data})
		default:
			ps = append(ps, problem{i, fmt.Sprintf("unexpected %q block in an assistant message", bl.Type)})
		}
	}
	r.add(i, m)
	return ps
}
