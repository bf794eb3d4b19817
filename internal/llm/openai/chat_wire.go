package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

// chatChunk is one streamed chunk (chat.completion.chunk) or a whole reply
// (chat.completion). The two share their shape except that a chunk's choice
// carries "delta" where a reply's carries "message"; both are read, so a
// server that mixes them up is still understood.
type chatChunk struct {
	ID      string       `json:"id"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	// XGroq carries Groq's usage when the request asked for none.
	XGroq *struct {
		Usage *chatUsage `json:"usage"`
	} `json:"x_groq"`
	// Error is set by servers that report a failure inside a 200 reply
	// (OpenRouter puts it on an otherwise ordinary chunk).
	Error json.RawMessage `json:"error"`
}

// failed reports whether the chunk carries an error object.
func (c *chatChunk) failed() bool {
	e := bytes.TrimSpace(c.Error)
	return len(e) > 0 && string(e) != "null"
}

// chatChoice is one entry of "choices"; hermes asks for one, index 0.
type chatChoice struct {
	Index        int          `json:"index"`
	Delta        *chatMessage `json:"delta"`
	Message      *chatMessage `json:"message"`
	FinishReason *string      `json:"finish_reason"`
}

// chatMessage is a reply message or a delta of one. Reasoning arrives in
// whichever field the vendor chose: reasoning_content (DeepSeek, vLLM),
// reasoning (Groq, OpenRouter, Ollama) or reasoning_details (OpenRouter's
// typed copy of reasoning).
type chatMessage struct {
	Content          chatContent           `json:"content"`
	ReasoningContent chatOptString         `json:"reasoning_content"`
	Reasoning        chatOptString         `json:"reasoning"`
	ReasoningDetails []chatReasoningDetail `json:"reasoning_details"`
	ToolCalls        []chatToolCall        `json:"tool_calls"`
}

// chatOptString is a string field that records whether its key was sent
// at all (even as null), so that one reasoning field can defer to another.
// A value of another JSON type is ignored rather than failing the chunk.
type chatOptString struct {
	set bool
	s   string
}

func (o *chatOptString) UnmarshalJSON(b []byte) error {
	o.set = true
	if len(b) > 0 && b[0] == '"' {
		return chatUnquote(b, &o.s)
	}
	return nil
}

// chatUnquote decodes the JSON string b into s. Most streamed deltas are
// short strings without escapes; those are copied directly instead of being
// scanned a second time by encoding/json, which has already validated the
// value before handing it over.
func chatUnquote(b []byte, s *string) error {
	n := len(b)
	if n < 2 || b[0] != '"' || b[n-1] != '"' {
		return json.Unmarshal(b, s)
	}
	inner := b[1 : n-1]
	ascii := true
	for _, c := range inner {
		switch {
		case c == '\\' || c == '"' || c < 0x20:
			return json.Unmarshal(b, s)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(inner) {
		return json.Unmarshal(b, s) // replaces invalid bytes with U+FFFD
	}
	*s = string(inner)
	return nil
}

// chatReasoningDetail is one entry of OpenRouter's reasoning_details:
// reasoning.text (text), reasoning.summary (summary) or
// reasoning.encrypted (opaque data, nothing readable).
type chatReasoningDetail struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Summary string `json:"summary"`
}

// text returns the readable reasoning a detail carries; encrypted details
// carry none.
func (d chatReasoningDetail) text() string {
	if d.Text != "" {
		return d.Text
	}
	if d.Type == "reasoning.summary" {
		return d.Summary
	}
	return ""
}

// chatContent is message content: null, a string, or (Mistral Magistral)
// an array of typed chunks in which "thinking" chunks hold reasoning and
// "text" chunks hold the reply.
type chatContent struct {
	text  string
	parts []chatSegment
}

// chatSegment is one piece of array content, in arrival order.
type chatSegment struct {
	reasoning bool
	text      string
}

// chatContentPart is one typed chunk of array content.
type chatContentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

func (c *chatContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return chatUnquote(b, &c.text)
	case '{':
		b = append(append([]byte{'['}, b...), ']')
	case '[':
	default:
		return nil
	}
	var parts []chatContentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	c.parts = make([]chatSegment, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.parts = append(c.parts, chatSegment{text: p.Text})
		case "thinking":
			c.parts = append(c.parts, chatSegment{reasoning: true, text: chatThinkingText(p.Thinking)})
		}
	}
	return nil
}

// chatThinkingText flattens a Magistral "thinking" value: an array of text
// chunks, or a plain string.
func chatThinkingText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var parts []chatContentPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []byte
	for _, p := range parts {
		out = append(out, p.Text...)
	}
	return string(out)
}

// chatToolCall is a tool call or a fragment of one. Index is nil when the
// server sent none (Mistral); Arguments may be a JSON string or, from some
// servers, the arguments object itself.
type chatToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// chatUsage is the usage object. DeepSeek reports cache hits in
// prompt_cache_hit_tokens instead of prompt_tokens_details.
type chatUsage struct {
	PromptTokens         chatCount `json:"prompt_tokens"`
	CompletionTokens     chatCount `json:"completion_tokens"`
	TotalTokens          chatCount `json:"total_tokens"`
	PromptCacheHitTokens chatCount `json:"prompt_cache_hit_tokens"`
	PromptTokensDetails  *struct {
		CachedTokens chatCount `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens chatCount `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// canonical maps the wire usage to llm.Usage.
func (u *chatUsage) canonical() llm.Usage {
	out := llm.Usage{
		InputTokens:  int(u.PromptTokens),
		OutputTokens: int(u.CompletionTokens),
		TotalTokens:  int(u.TotalTokens),
	}
	if u.PromptTokensDetails != nil {
		out.CacheReadTokens = int(u.PromptTokensDetails.CachedTokens)
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = int(u.PromptCacheHitTokens)
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = int(u.CompletionTokensDetails.ReasoningTokens)
	}
	return out
}

// chatCount is a token count. It accepts a number in any JSON form (some
// servers send 12.0) or a numeric string, and reads anything else as zero,
// so that an odd usage object never fails the chunk that carries the reply.
type chatCount int

func (n *chatCount) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `" `))
	if i, err := strconv.Atoi(s); err == nil {
		*n = chatCount(i)
	} else if f, err := strconv.ParseFloat(s, 64); err == nil {
		*n = chatCount(f)
	}
	return nil
}
