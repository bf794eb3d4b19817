package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// wirePart is any content part or block of the three protocols: Chat
// Completions parts (text, image_url), Responses parts (input_text,
// output_text, input_image) and Anthropic blocks (text, image, tool_use,
// tool_result, thinking, redacted_thinking). One struct holds them all
// because each protocol only reads the fields its types use.
type wirePart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	ImageURL json.RawMessage `json:"image_url"`
	Source   *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// errContentShape is reported for content that is neither text nor a list.
var errContentShape = errors.New("content is neither a string nor a list of parts")

// parseContent reads a content value: absent or null (no parts), a string
// (one text part) or a list of parts.
func parseContent(raw json.RawMessage) ([]wirePart, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []wirePart{{Type: "text", Text: s}}, nil
	case '[':
		var parts []wirePart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, errContentShape
		}
		return parts, nil
	}
	return nil, errContentShape
}

// isText reports whether a part type carries text.
func isText(typ string) bool {
	return typ == "text" || typ == "input_text" || typ == "output_text"
}

// isImage reports whether a part type carries an image.
func isImage(typ string) bool {
	return typ == "image_url" || typ == "input_image" || typ == "image"
}

// canonicalPart converts a text or image part; ok is false for any other
// type.
func canonicalPart(p wirePart) (llm.Part, bool) {
	switch {
	case isText(p.Type):
		return llm.TextPart(p.Text), true
	case isImage(p.Type):
		if p.Source != nil {
			if p.Source.Type == "base64" {
				part := llm.ImagePart("data:" + p.Source.MediaType + ";base64," + p.Source.Data)
				part.MIMEType = p.Source.MediaType
				return part, true
			}
			return llm.ImagePart(p.Source.URL), true
		}
		return llm.ImagePart(imageURL(p.ImageURL)), true
	}
	return llm.Part{}, false
}

// imageURL reads an image_url given as a string (Responses) or as
// {"url": ...} (Chat Completions).
func imageURL(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.URL
}

// simpleContent converts content made only of text and image parts. It
// returns the parts and the types it did not understand.
func simpleContent(raw json.RawMessage) ([]llm.Part, []string, error) {
	parts, err := parseContent(raw)
	var (
		out     []llm.Part
		unknown []string
	)
	for _, p := range parts {
		if c, ok := canonicalPart(p); ok {
			out = append(out, c)
		} else {
			unknown = append(unknown, p.Type)
		}
	}
	return out, unknown, err
}

// argumentsAreText reports whether a wire "arguments" value is a JSON
// string, as both OpenAI protocols require (some servers send an object).
func argumentsAreText(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || raw[0] == '"' || string(raw) == "null"
}

// canonicalArgs normalizes argument text the way hermes does: empty is {}.
func canonicalArgs(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	return s
}

// compactJSON returns raw without insignificant space, or {} when absent.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&b, raw) != nil {
		return "{}"
	}
	return b.String()
}
