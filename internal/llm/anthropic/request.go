package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// DefaultMaxTokens is the reply cap sent when a Request sets none: the
// Messages API requires max_tokens on every call.
const DefaultMaxTokens = 8192

// messageRequest is the body of POST /v1/messages.
type messageRequest struct {
	Model       string         `json:"model"`
	MaxTokens   int            `json:"max_tokens"`
	System      []*block       `json:"system,omitempty"`
	Messages    []*turn        `json:"messages"`
	Tools       []*tool        `json:"tools,omitempty"`
	ToolChoice  *toolChoice    `json:"tool_choice,omitempty"`
	Thinking    *thinking      `json:"thinking,omitempty"`
	Temperature *float64       `json:"temperature,omitempty"`
	Stream      bool           `json:"stream,omitempty"`
	extra       map[string]any // Request.Extra, merged last by MarshalJSON
}

// turn is one entry of "messages": a user or assistant turn of blocks.
type turn struct {
	Role    string   `json:"role"`
	Content []*block `json:"content"`
}

// block is a content block as sent. One struct covers every block type the
// adapter sends; unused fields are left out of the JSON.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// Content is a tool_result's content: its text, or blocks when the
	// result carries images.
	Content      any           `json:"content,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// MarshalJSON writes the body with Request.Extra merged in at the top
// level last, so that a configured vendor field can add to or override
// anything the adapter set.
func (r *messageRequest) MarshalJSON() ([]byte, error) {
	type plain messageRequest
	data, err := json.Marshal((*plain)(r))
	if err != nil || len(r.extra) == 0 {
		return data, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	for k, v := range r.extra {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		fields[k] = raw
	}
	return json.Marshal(fields)
}

// emptySchema is sent for a tool declared without parameters, because the
// API requires an input_schema object.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest translates a canonical request into the Messages body
// without its system blocks, turns and tools, which fill or the cached
// encoding (body) add.
func (c *Client) buildRequest(req *llm.Request) (*messageRequest, error) {
	r := &messageRequest{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		Stream:    !req.NoStream,
		extra:     req.Extra,
	}
	if r.Model == "" {
		r.Model = c.ep.Model
	}
	if r.Model == "" {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: c.ep.Name, Message: "anthropic: no model named in the request or the provider configuration"}
	}
	if r.MaxTokens <= 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	if req.ThinkingBudget > 0 {
		r.Thinking = &thinking{Type: "enabled", BudgetTokens: req.ThinkingBudget}
		// max_tokens counts the thinking too and must exceed the budget;
		// give the visible answer the cap it asked for on top of it.
		if r.MaxTokens <= req.ThinkingBudget {
			r.MaxTokens += req.ThinkingBudget
		}
	} else {
		// The API rejects any temperature but 1 while thinking is on, so
		// it is only sent when thinking is off.
		r.Temperature = req.Temperature
	}
	switch req.ToolChoice {
	case "":
	case "auto", "none":
		r.ToolChoice = &toolChoice{Type: req.ToolChoice}
	case "required":
		r.ToolChoice = &toolChoice{Type: "any"}
	default:
		r.ToolChoice = &toolChoice{Type: "tool", Name: req.ToolChoice}
	}
	return r, nil
}

// fill sets the system blocks, the turns and the tools of r from req, and
// marks the cache breakpoints req asks for.
func (c *Client) fill(r *messageRequest, req *llm.Request) {
	r.System, r.Messages = mapMessages(req.Messages)
	r.Tools = toolsOf(req.Tools)
	if req.CacheBreakpoints {
		markCacheBreakpoints(r, c.ep.CacheTTL)
	}
}

// toolsOf declares the tools.
func toolsOf(tools []llm.ToolSpec) []*tool {
	var out []*tool
	for _, t := range tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
			schema = emptySchema
		}
		out = append(out, &tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out
}

// mapMessages splits canonical messages into the system blocks and the
// turns. Anthropic wants user and assistant turns to alternate, so a
// message whose wire role equals the previous turn's is merged into it:
// consecutive tool results, and the user message that follows them, become
// one user turn. Messages that would send no block are dropped, because the
// API rejects empty content.
func mapMessages(msgs []llm.Message) (system []*block, turns []*turn) {
	for _, m := range msgs {
		role, blocks := messageBlocks(m)
		if role == "system" {
			system = append(system, blocks...)
			continue
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].Role == role {
			turns[n-1].Content = append(turns[n-1].Content, blocks...)
			continue
		}
		turns = append(turns, &turn{Role: role, Content: blocks})
	}
	return system, turns
}

// messageBlocks returns the blocks a message sends and the role of the
// turn they go in: "system" for the system prompt's text blocks.
func messageBlocks(m llm.Message) (role string, blocks []*block) {
	switch m.Role {
	case llm.RoleSystem:
		for _, p := range m.Content {
			if p.Type == llm.PartText && p.Text != "" {
				blocks = append(blocks, &block{Type: "text", Text: p.Text})
			}
		}
		return "system", blocks
	case llm.RoleAssistant:
		return "assistant", assistantBlocks(m)
	case llm.RoleTool:
		return "user", []*block{toolResultBlock(m)}
	default:
		return "user", partBlocks(m.Content)
	}
}

// assistantBlocks orders an assistant message as the API returned it:
// thinking blocks first (sent back verbatim, which the API requires for
// tool use with thinking to continue), then text, then tool calls.
func assistantBlocks(m llm.Message) []*block {
	var out []*block
	for _, rb := range m.ReasoningBlocks {
		switch {
		case rb.Type == "thinking" && rb.Signature != "":
			// A thinking block without a signature (from another
			// vendor) would be rejected; it is left out.
			text := rb.Text
			out = append(out, &block{Type: "thinking", Thinking: &text, Signature: rb.Signature})
		case rb.Type == "redacted_thinking" && rb.Data != "":
			out = append(out, &block{Type: "redacted_thinking", Data: rb.Data})
		}
	}
	out = append(out, partBlocks(m.Content)...)
	for _, tc := range m.ToolCalls {
		out = append(out, &block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
	}
	return out
}

// toolInput returns a call's arguments as the JSON object tool_use.input
// must be. Arguments the model produced that are not an object (empty,
// truncated, or another JSON value) are sent as {} so that the history
// stays acceptable to the API.
func toolInput(args string) json.RawMessage {
	t := strings.TrimSpace(args)
	if t == "" || t[0] != '{' || !json.Valid([]byte(t)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(t)
}

// toolResultBlock answers one tool call. The content is the result's text;
// when the result carries images it becomes a list of blocks instead.
func toolResultBlock(m llm.Message) *block {
	b := &block{Type: "tool_result", ToolUseID: m.ToolCallID}
	if m.HasImages() {
		if parts := partBlocks(m.Content); len(parts) > 0 {
			b.Content = parts
		}
	} else if text := m.Text(); text != "" {
		b.Content = text
	}
	return b
}

// partBlocks maps text and image parts; empty text is never sent.
func partBlocks(parts []llm.Part) []*block {
	out := make([]*block, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				out = append(out, &block{Type: "text", Text: p.Text})
			}
		case llm.PartImage:
			if src := imageSourceOf(p); src != nil {
				out = append(out, &block{Type: "image", Source: src})
			}
		}
	}
	return out
}

// imageSourceOf maps an image part: a data: URL becomes a base64 source
// (re-encoded if the URL was not base64), anything else a URL source.
func imageSourceOf(p llm.Part) *imageSource {
	u := strings.TrimSpace(p.ImageURL)
	if u == "" {
		return nil
	}
	if !strings.HasPrefix(u, "data:") {
		return &imageSource{Type: "url", URL: u}
	}
	meta, payload, ok := strings.Cut(u[len("data:"):], ",")
	if !ok {
		return nil
	}
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	if mediaType == "" {
		mediaType = p.MIMEType
	}
	if !isBase64 {
		raw, err := url.PathUnescape(payload)
		if err != nil {
			return nil
		}
		payload = base64.StdEncoding.EncodeToString([]byte(raw))
	}
	return &imageSource{Type: "base64", MediaType: mediaType, Data: payload}
}
