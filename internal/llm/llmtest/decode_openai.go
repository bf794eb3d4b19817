package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// chatBody is the part of a Chat Completions request the server reads.
type chatBody struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		Name             string          `json:"name"`
		ToolCallID       string          `json:"tool_call_id"`
		ToolCalls        []chatCallIn    `json:"tool_calls"`
		ReasoningContent string          `json:"reasoning_content"`
		Reasoning        string          `json:"reasoning"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type chatCallIn struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// decodeChat decodes a Chat Completions request into r.
func decodeChat(r *Request) ([]problem, error) {
	var b chatBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return nil, err
	}
	r.Model, r.Stream = b.Model, b.Stream
	var ps []problem
	if b.StreamOptions != nil {
		r.includeUsage = b.StreamOptions.IncludeUsage
		if !b.Stream {
			ps = append(ps, problem{-1, "stream_options is only allowed when stream is true"})
		}
	}
	for _, t := range b.Tools {
		if t.Type == "function" {
			r.Tools = append(r.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
		}
	}
	if len(b.Messages) == 0 {
		ps = append(ps, problem{-1, "messages list is empty"})
	}
	for i, m := range b.Messages {
		content, unknown, err := simpleContent(m.Content)
		if err != nil {
			ps = append(ps, problem{i, err.Error()})
		}
		for _, u := range unknown {
			ps = append(ps, problem{i, fmt.Sprintf("unknown content part type %q", u)})
		}
		msg := llm.Message{Content: content}
		switch m.Role {
		case "system", "developer":
			msg.Role = llm.RoleSystem
		case "user":
			msg.Role = llm.RoleUser
		case "assistant":
			msg.Role = llm.RoleAssistant
			msg.Reasoning = cmp.Or(m.ReasoningContent, m.Reasoning)
			for _, c := range m.ToolCalls {
				if !argumentsAreText(c.Function.Arguments) {
					ps = append(ps, problem{i, fmt.Sprintf("tool call %q: arguments must be a JSON string", c.ID)})
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: canonicalArgs(llm.ArgumentsText(c.Function.Arguments))})
			}
			if len(content) == 0 && len(m.ToolCalls) == 0 {
				ps = append(ps, problem{i, "assistant message has neither content nor tool_calls"})
			}
		case "tool":
			msg.Role = llm.RoleTool
			msg.ToolCallID, msg.Name = m.ToolCallID, m.Name
		default:
			ps = append(ps, problem{i, fmt.Sprintf("unknown role %q", m.Role)})
			continue
		}
		r.add(i, msg)
	}
	return ps, nil
}

// responsesItem is any item of a Responses request's input list.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
}

// Stages of an assistant turn in a Responses input list: a turn is its
// reasoning items, one message item and its function calls, in that order
// (the order a reply's output lists them), and an item that cannot follow
// the current stage starts a new turn.
const (
	stageNone = iota
	stageReasoning
	stageMessage
	stageCalls
)

// decodeResponses decodes a Responses request into r.
func decodeResponses(r *Request) ([]problem, error) {
	var b struct {
		Model              string          `json:"model"`
		Stream             bool            `json:"stream"`
		Instructions       string          `json:"instructions"`
		Input              json.RawMessage `json:"input"`
		Include            []string        `json:"include"`
		PreviousResponseID string          `json:"previous_response_id"`
		Tools              []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return nil, err
	}
	r.Model, r.Stream = b.Model, b.Stream
	r.stateful = b.PreviousResponseID != ""
	r.encrypted = slices.Contains(b.Include, "reasoning.encrypted_content")
	for _, t := range b.Tools {
		if t.Type == "function" {
			r.Tools = append(r.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	if b.Instructions != "" {
		r.add(-1, llm.SystemMessage(b.Instructions))
	}
	var (
		ps    []problem
		items []responsesItem
		text  string
	)
	switch {
	case json.Unmarshal(b.Input, &text) == nil:
		if text != "" {
			items = []responsesItem{{Type: "message", Role: "user", Content: b.Input}}
		}
	case len(b.Input) == 0 || string(b.Input) == "null":
	default:
		if err := json.Unmarshal(b.Input, &items); err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
	}
	if len(items) == 0 {
		ps = append(ps, problem{-1, "input list is empty"})
	}
	turn, stage := -1, stageNone // the open assistant turn in r.Messages
	join := func(i, s int) *llm.Message {
		if turn < 0 || s < stage || (s == stage && s == stageMessage) {
			r.add(i, llm.Message{Role: llm.RoleAssistant})
			turn = len(r.Messages) - 1
		}
		stage = s
		return &r.Messages[turn]
	}
	for i, it := range items {
		typ := cmp.Or(it.Type, "message")
		switch typ {
		case "message":
			content, unknown, err := simpleContent(it.Content)
			if err != nil {
				ps = append(ps, problem{i, err.Error()})
			}
			for _, u := range unknown {
				ps = append(ps, problem{i, fmt.Sprintf("unknown content part type %q", u)})
			}
			switch it.Role {
			case "user":
				turn = -1
				r.add(i, llm.Message{Role: llm.RoleUser, Content: content})
			case "system", "developer":
				turn = -1
				r.add(i, llm.Message{Role: llm.RoleSystem, Content: content})
			case "assistant":
				m := join(i, stageMessage)
				m.Content = append(m.Content, content...)
			default:
				ps = append(ps, problem{i, fmt.Sprintf("unknown role %q", it.Role)})
			}
		case "function_call":
			if !argumentsAreText(it.Arguments) {
				ps = append(ps, problem{i, fmt.Sprintf("function_call %q: arguments must be a JSON string", it.CallID)})
			}
			m := join(i, stageCalls)
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: canonicalArgs(llm.ArgumentsText(it.Arguments))})
		case "function_call_output":
			turn = -1
			content, _, err := simpleContent(it.Output)
			if err != nil {
				ps = append(ps, problem{i, "output: " + err.Error()})
			}
			r.add(i, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Content: content})
		case "reasoning":
			var sum []string
			for _, s := range it.Summary {
				sum = append(sum, s.Text)
			}
			m := join(i, stageReasoning)
			m.Reasoning += strings.Join(sum, "")
			m.ReasoningBlocks = append(m.ReasoningBlocks, llm.ReasoningBlock{Type: "reasoning", ID: it.ID, Text: strings.Join(sum, ""), Data: it.EncryptedContent})
		default:
			turn = -1
			ps = append(ps, problem{i, fmt.Sprintf("unknown input item type %q", typ)})
		}
	}
	return ps, nil
}
