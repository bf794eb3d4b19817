package llm

import "strings"

// Role is who wrote a message. hermes uses OpenAI-style roles internally;
// adapters map them to each vendor's shape.
type Role string

// The four roles a canonical message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType says what a content part holds.
type PartType string

// The content part types hermes sends to models.
const (
	PartText  PartType = "text"
	PartImage PartType = "image"
)

// Part is one piece of a message's content: text, or an image given as a
// URL (http(s) or a data: URL with base64 bytes).
type Part struct {
	Type PartType `json:"type"`
	Text string   `json:"text,omitempty"`
	// ImageURL is an http(s) URL or a data: URL ("data:image/png;base64,...").
	ImageURL string `json:"image_url,omitempty"`
	// MIMEType is the image's media type when known ("image/png").
	MIMEType string `json:"mime_type,omitempty"`
}

// TextPart returns a text content part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// ImagePart returns an image content part for an http(s) or data: URL.
func ImagePart(url string) Part { return Part{Type: PartImage, ImageURL: url} }

// ToolCall is one function call the model asked for. Arguments is the raw
// JSON text the model produced, kept as text because a model can emit JSON
// that does not parse; the tool layer repairs and validates it. An empty
// argument string from the wire is normalized to "{}".
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ReasoningBlock is an opaque piece of model reasoning that must be sent
// back verbatim on the next request for the conversation to continue:
// Anthropic thinking blocks (with their signature) and redacted_thinking
// blocks, and OpenAI Responses reasoning items (with encrypted content).
type ReasoningBlock struct {
	// Type is the vendor's block type: "thinking", "redacted_thinking" or
	// "reasoning".
	Type string `json:"type"`
	// ID is the vendor's item id (Responses reasoning items).
	ID string `json:"id,omitempty"`
	// Text is the visible reasoning text of the block, if any.
	Text string `json:"text,omitempty"`
	// Signature authenticates an Anthropic thinking block.
	Signature string `json:"signature,omitempty"`
	// Data is the opaque payload: redacted_thinking data or Responses
	// encrypted_content.
	Data string `json:"data,omitempty"`
}

// Message is the canonical message. For role tool, ToolCallID names the call
// being answered and Name the tool; for role assistant, ToolCalls lists the
// calls made and Reasoning/ReasoningBlocks keep what the model thought.
type Message struct {
	Role       Role       `json:"role"`
	Content    []Part     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Reasoning is the model's visible reasoning text. It is shown to the
	// user and stored, but adapters do not send it back unless the vendor
	// needs it (see ReasoningBlocks).
	Reasoning       string           `json:"reasoning,omitempty"`
	ReasoningBlocks []ReasoningBlock `json:"reasoning_blocks,omitempty"`
}

// Text returns the message's text parts joined together.
func (m Message) Text() string {
	if len(m.Content) == 1 && m.Content[0].Type == PartText {
		return m.Content[0].Text
	}
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// HasImages reports whether any content part is an image.
func (m Message) HasImages() bool {
	for _, p := range m.Content {
		if p.Type == PartImage {
			return true
		}
	}
	return false
}

// SystemMessage returns a system message with the given text.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Content: []Part{TextPart(text)}}
}

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Content: []Part{TextPart(text)}}
}

// AssistantMessage returns an assistant message with text and optional calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	m := Message{Role: RoleAssistant, ToolCalls: calls}
	if text != "" {
		m.Content = []Part{TextPart(text)}
	}
	return m
}

// ToolResultMessage returns the tool message answering call id.
func ToolResultMessage(callID, name, content string) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Name: name, Content: []Part{TextPart(content)}}
}
