package openai

import (
	"encoding/json"

	"github.com/hermes-go/hermes/llm"
)

// chatRequest is the Chat Completions request body. Optional fields are
// omitted when unset so that strict servers see only what they know.
type chatRequest struct {
	Model               string             `json:"model,omitempty"`
	Messages            []chatWireMessage  `json:"messages"`
	Tools               []chatWireTool     `json:"tools,omitempty"`
	ToolChoice          any                `json:"tool_choice,omitempty"`
	MaxTokens           int                `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                `json:"max_completion_tokens,omitempty"`
	Temperature         *float64           `json:"temperature,omitempty"`
	ReasoningEffort     string             `json:"reasoning_effort,omitempty"`
	Stream              bool               `json:"stream"`
	StreamOptions       *chatStreamOptions `json:"stream_options,omitempty"`
}

// chatStreamOptions asks for a final chunk carrying the usage.
type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatWireMessage is one message on the wire. Content is a string, an
// array of parts, or nil (omitted: an assistant message that only calls
// tools, which some servers reject with an empty string).
type chatWireMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatWireCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// chatWirePart is one part of array content: text or an image URL.
type chatWirePart struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	ImageURL *chatWireImageURL `json:"image_url,omitempty"`
}

// chatWireImageURL holds an http(s) or data: URL.
type chatWireImageURL struct {
	URL string `json:"url"`
}

// chatWireCall is a tool call an assistant message made.
type chatWireCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatWireFunction `json:"function"`
}

// chatWireFunction names the function called and carries its arguments
// as JSON text.
type chatWireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatWireTool declares a tool the model may call.
type chatWireTool struct {
	Type     string           `json:"type"`
	Function chatWireToolSpec `json:"function"`
}

// chatWireToolSpec is a tool's name, description and parameter schema.
type chatWireToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chatEmptySchema is sent for a tool that declares no parameters: OpenAI
// rejects a function without a parameters object for some models, and
// every server accepts an empty object schema.
var chatEmptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// body translates a canonical request into the wire body. Extra fields are
// merged last, at the top level, so a configuration can set or override any
// field the canonical request has no name for.
func (c *Chat) body(req *llm.Request) any {
	w := chatRequest{
		Model:           req.Model,
		Messages:        chatMessages(req.Messages),
		Temperature:     req.Temperature,
		ReasoningEffort: req.ReasoningEffort,
		Stream:          !req.NoStream,
	}
	if w.Model == "" {
		w.Model = c.ep.Model
	}
	if w.Stream && !c.noStreamOptions {
		w.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	if c.completionTokens {
		w.MaxCompletionTokens = req.MaxTokens
	} else {
		w.MaxTokens = req.MaxTokens
	}
	if len(req.Tools) > 0 {
		w.Tools = make([]chatWireTool, len(req.Tools))
		for i, t := range req.Tools {
			params := t.Parameters
			if len(params) == 0 || string(params) == "null" {
				params = chatEmptySchema
			}
			w.Tools[i] = chatWireTool{Type: "function", Function: chatWireToolSpec{Name: t.Name, Description: t.Description, Parameters: params}}
		}
		w.ToolChoice = chatToolChoice(req.ToolChoice)
	}
	if len(req.Extra) == 0 {
		return w
	}
	return chatMerge(w, req.Extra)
}

// chatToolChoice maps the canonical tool choice to its wire form: the
// three keywords as strings, anything else as the name of one function.
func chatToolChoice(choice string) any {
	switch choice {
	case "":
		return nil
	case "auto", "none", "required":
		return choice
	}
	return map[string]any{"type": "function", "function": map[string]string{"name": choice}}
}

// chatMerge returns w as a JSON object with extra's fields set on top.
func chatMerge(w chatRequest, extra map[string]any) any {
	buf, err := json.Marshal(w)
	if err != nil {
		return w
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(buf, &fields); err != nil {
		return w
	}
	out := make(map[string]any, len(fields)+len(extra))
	for k, v := range fields {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// chatMessages translates the conversation. Reasoning is not sent back:
// Chat Completions servers neither need nor accept it.
func chatMessages(msgs []llm.Message) []chatWireMessage {
	out := make([]chatWireMessage, 0, len(msgs))
	for _, m := range msgs {
		w := chatWireMessage{Role: string(m.Role)}
		switch m.Role {
		case llm.RoleUser:
			w.Content = chatUserContent(m)
		case llm.RoleAssistant:
			text := m.Text()
			if text != "" || len(m.ToolCalls) == 0 {
				w.Content = text
			}
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				w.ToolCalls = append(w.ToolCalls, chatWireCall{ID: tc.ID, Type: "function", Function: chatWireFunction{Name: tc.Name, Arguments: args}})
			}
		case llm.RoleTool:
			w.ToolCallID = m.ToolCallID
			w.Content = m.Text()
		default:
			w.Content = m.Text()
		}
		out = append(out, w)
	}
	return out
}

// chatUserContent is a plain string for text-only content, which every
// server accepts, and an array of parts only when there are images.
func chatUserContent(m llm.Message) any {
	if !m.HasImages() {
		return m.Text()
	}
	parts := make([]chatWirePart, 0, len(m.Content))
	for _, p := range m.Content {
		switch p.Type {
		case llm.PartText:
			parts = append(parts, chatWirePart{Type: "text", Text: p.Text})
		case llm.PartImage:
			parts = append(parts, chatWirePart{Type: "image_url", ImageURL: &chatWireImageURL{URL: p.ImageURL}})
		}
	}
	return parts
}
