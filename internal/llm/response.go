package llm

import "encoding/json"

// FinishReason is why the model stopped, normalized across vendors. The
// vendor's own value is kept beside it in Response.RawFinishReason.
type FinishReason string

// The normalized finish reasons.
const (
	FinishStop          FinishReason = "stop"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishLength        FinishReason = "length"
	FinishContentFilter FinishReason = "content_filter"
	FinishError         FinishReason = "error"
)

// Usage counts tokens for one model call. InputTokens is the whole prompt,
// cached or not, on every vendor (Anthropic reports cache reads and writes
// apart from input_tokens; the adapter adds them in), so it is the size of
// the context the model saw.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens"`
	// TotalTokens is the vendor's total when it sends one; some vendors
	// count hidden thinking only there.
	TotalTokens int `json:"total_tokens,omitempty"`
}

// MarshalJSON writes the counts with total_tokens always present: the
// vendor's total when it sent one, else input plus output. Scripts read
// total_tokens from every JSON hermes prints (chat --json, the API's runs
// and responses), whichever vendor answered.
func (u Usage) MarshalJSON() ([]byte, error) {
	type counts Usage
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return json.Marshal(struct {
		counts
		TotalTokens int `json:"total_tokens"`
	}{counts(u), total})
}

// IsZero reports whether no count was reported.
func (u Usage) IsZero() bool { return u == Usage{} }

// Response is a finished (or, with an error, partial) model reply.
type Response struct {
	// ID is the vendor's response id.
	ID string
	// Model is the model that answered, as the vendor named it.
	Model string
	// Provider is the name of the configured provider that answered.
	Provider string
	// Message is the assistant message: text, reasoning and tool calls.
	Message         Message
	FinishReason    FinishReason
	RawFinishReason string
	Usage           Usage
}

// Text returns the reply's visible text.
func (r *Response) Text() string { return r.Message.Text() }

// Empty reports whether the reply carries neither text nor tool calls.
func (r *Response) Empty() bool {
	return r.Message.Text() == "" && len(r.Message.ToolCalls) == 0
}
