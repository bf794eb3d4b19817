package anthropic

import "github.com/hermes-go/hermes/internal/llm"

// Prompt caching: Anthropic caches the prompt prefix up to a block marked
// with cache_control, and reads it back on a later call whose prefix is the
// same. hermes builds its system prompt once per session and appends to the
// history, so the prefix grows turn by turn and the marks below let each
// call reuse nearly all of the previous one. Cached tokens are billed and
// reported apart from input_tokens; the usage accounting here adds them
// back, because hermes sizes its context from InputTokens.

// maxBreakpoints is Anthropic's limit on cache_control marks per request.
const maxBreakpoints = 4

// cacheControl marks the end of a cacheable prefix. "ephemeral" is the
// only type; the default lifetime (five minutes, refreshed on every hit)
// suits a conversation in progress.
type cacheControl struct {
	Type string `json:"type"`
	// TTL is "1h" for the longer lifetime; empty keeps the default.
	TTL string `json:"ttl,omitempty"`
}

// markCacheBreakpoints places up to four breakpoints, from the most stable
// part of the prompt to the least: the end of the system prompt, the end of
// the tool list, and the last block of each of the last two user turns
// (tool results travel in user turns). Marking the second-to-last user turn
// as well as the last lets the next call hit the cache written by this one
// even though a new assistant turn and user turn were appended since.
func markCacheBreakpoints(r *messageRequest, ttl string) {
	if ttl != "1h" {
		ttl = ""
	}
	ephemeral := func() *cacheControl { return &cacheControl{Type: "ephemeral", TTL: ttl} }
	left := maxBreakpoints
	if n := len(r.System); n > 0 {
		r.System[n-1].CacheControl = ephemeral()
		left--
	}
	if n := len(r.Tools); n > 0 {
		r.Tools[n-1].CacheControl = ephemeral()
		left--
	}
	marked := 0
	for i := len(r.Messages) - 1; i >= 0 && marked < 2 && left > 0; i-- {
		t := r.Messages[i]
		if t.Role != "user" || len(t.Content) == 0 {
			continue
		}
		t.Content[len(t.Content)-1].CacheControl = ephemeral()
		marked++
		left--
	}
}

// usageCounts is the reply's usage as the wire reports it. Every field is
// a pointer so that a message_delta can replace exactly the counts it
// carries: its usage is cumulative, and some Anthropic-compatible servers
// send the real input count only there (with 0 in message_start).
type usageCounts struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	// OutputTokensDetails splits the output; thinking_tokens is the part
	// spent on extended thinking.
	OutputTokensDetails *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// merge replaces the counts that u carries and keeps the others.
func (c *usageCounts) merge(u *usageCounts) {
	if u == nil {
		return
	}
	if u.InputTokens != nil {
		c.InputTokens = u.InputTokens
	}
	if u.OutputTokens != nil {
		c.OutputTokens = u.OutputTokens
	}
	if u.CacheReadInputTokens != nil {
		c.CacheReadInputTokens = u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		c.CacheCreationInputTokens = u.CacheCreationInputTokens
	}
	if u.OutputTokensDetails != nil && u.OutputTokensDetails.ThinkingTokens != nil {
		c.OutputTokensDetails = u.OutputTokensDetails
	}
}

// usage converts the wire counts. InputTokens is the whole prompt: the
// uncached part plus what was read from and written to the cache.
func (c *usageCounts) usage() llm.Usage {
	val := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	read, write := val(c.CacheReadInputTokens), val(c.CacheCreationInputTokens)
	thinking := 0
	if c.OutputTokensDetails != nil {
		thinking = val(c.OutputTokensDetails.ThinkingTokens)
	}
	return llm.Usage{
		ReasoningTokens:  thinking,
		InputTokens:      val(c.InputTokens) + read + write,
		OutputTokens:     val(c.OutputTokens),
		CacheReadTokens:  read,
		CacheWriteTokens: write,
	}
}
