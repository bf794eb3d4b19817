package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
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
//
// The messages and tools come from req.Cache, encoded once per turn, and
// the body is put together around them with the same bytes json.Marshal
// gives for the whole chatRequest, so a long turn does not encode its
// history again on every call.
func (c *Chat) body(req *llm.Request) (any, error) {
	w := c.header(req)
	if len(req.Extra) > 0 {
		w.Messages = chatMessages(req.Messages)
		w.Tools = chatTools(req.Tools)
		return chatMerge(w, req.Extra), nil
	}
	msgs, err := req.Cache.Messages("chat", req.Messages, func(m llm.Message) ([]byte, error) {
		return json.Marshal(chatWire(m))
	})
	if err != nil {
		return nil, err
	}
	var tools []byte
	if len(req.Tools) > 0 {
		if tools, err = req.Cache.Tools("chat", req.Tools, func(ts []llm.ToolSpec) ([]byte, error) {
			return json.Marshal(chatTools(ts))
		}); err != nil {
			return nil, err
		}
	}
	// The fields after "tools", encoded on their own: "stream" is always
	// there, so the object is never empty.
	rest, err := json.Marshal(chatRequest{ToolChoice: w.ToolChoice, MaxTokens: w.MaxTokens,
		MaxCompletionTokens: w.MaxCompletionTokens, Temperature: w.Temperature,
		ReasoningEffort: w.ReasoningEffort, Stream: w.Stream, StreamOptions: w.StreamOptions})
	if err != nil {
		return nil, err
	}
	const lead = `{"messages":null,`
	if !bytes.HasPrefix(rest, []byte(lead)) {
		return nil, fmt.Errorf("chat request encoded as %.40s…, not starting with %s", rest, lead)
	}
	rest = rest[len(lead):]

	size := len(rest) + len(tools) + len(w.Model) + 64
	for _, m := range msgs {
		size += len(m) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	if w.Model != "" {
		model, err := json.Marshal(w.Model)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, `"model":`...), model...), ',')
	}
	buf = append(buf, `"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, m...)
	}
	buf = append(buf, "],"...)
	if len(tools) > 0 {
		buf = append(append(append(buf, `"tools":`...), tools...), ',')
	}
	return llm.Encoded(append(buf, rest...)), nil
}

// header is the request's fields other than the messages and tools.
func (c *Chat) header(req *llm.Request) chatRequest {
	w := chatRequest{
		Model:           req.Model,
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
		w.ToolChoice = chatToolChoice(req.ToolChoice)
	}
	return w
}

// chatTools declares the tools.
func chatTools(tools []llm.ToolSpec) []chatWireTool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]chatWireTool, len(tools))
	for i, t := range tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = chatEmptySchema
		}
		out[i] = chatWireTool{Type: "function", Function: chatWireToolSpec{Name: t.Name, Description: t.Description, Parameters: params}}
	}
	return out
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
	out := make([]chatWireMessage, len(msgs))
	for i, m := range msgs {
		out[i] = chatWire(m)
	}
	return out
}

// chatWire translates one message.
func chatWire(m llm.Message) chatWireMessage {
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
	return w
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
