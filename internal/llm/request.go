package llm

import "encoding/json"

// ToolSpec describes a tool the model may call. Parameters is a JSON Schema
// object; adapters pass it through unchanged.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one model call in canonical form. System prompts are given as
// leading RoleSystem messages; adapters move them where their vendor wants
// them (Anthropic's system field, Responses instructions).
type Request struct {
	// Model overrides the provider's configured model when set.
	Model    string
	Messages []Message
	Tools    []ToolSpec
	// ToolChoice is "", "auto", "none", "required", or the name of one tool.
	ToolChoice string
	// MaxTokens caps the reply; zero leaves it to the provider default
	// (the Anthropic adapter must send one and uses its own default).
	MaxTokens   int
	Temperature *float64
	// NoStream asks the adapter to use the vendor's non-streaming mode. The
	// caller still receives events, produced from the single JSON reply.
	NoStream bool
	// ReasoningEffort is passed to vendors that take one ("low", "medium",
	// "high"); empty leaves it out.
	ReasoningEffort string
	// ThinkingBudget enables Anthropic extended thinking with this many
	// budget tokens; zero leaves thinking off.
	ThinkingBudget int
	// CacheBreakpoints asks the Anthropic adapter to mark the system prompt,
	// the tools and the last messages for prompt caching.
	CacheBreakpoints bool
	// Extra holds vendor-specific top-level body fields merged into the
	// request as given (for example OpenRouter's "provider" routing).
	Extra map[string]any
	// Cache, when set, keeps the wire encoding of the messages and tools
	// from one call to the next (see WireCache). The agent loop gives
	// each turn one; nil encodes everything every time.
	Cache *WireCache
}

// Clone returns a copy of r whose slices and map can be changed without
// touching r's. Messages themselves are shared.
func (r *Request) Clone() *Request {
	c := *r
	c.Messages = append([]Message(nil), r.Messages...)
	c.Tools = append([]ToolSpec(nil), r.Tools...)
	if r.Extra != nil {
		c.Extra = make(map[string]any, len(r.Extra))
		for k, v := range r.Extra {
			c.Extra[k] = v
		}
	}
	return &c
}
