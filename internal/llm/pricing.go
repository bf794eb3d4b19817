package llm

import "strings"

// Price is what a model costs, in US dollars per million tokens.
// CacheReadPerM and CacheWritePerM are the prices of prompt tokens read
// from and written to the vendor's prompt cache; zero means the vendor does
// not price them apart, and Cost bills them at InputPerM.
type Price struct {
	InputPerM      float64 `json:"input_per_m" yaml:"input_per_m"`
	OutputPerM     float64 `json:"output_per_m" yaml:"output_per_m"`
	CacheReadPerM  float64 `json:"cache_read_per_m,omitempty" yaml:"cache_read_per_m,omitempty"`
	CacheWritePerM float64 `json:"cache_write_per_m,omitempty" yaml:"cache_write_per_m,omitempty"`
}

// prices are list prices for common models, matched like the context
// table: the longest lower-case fragment found at a name boundary wins.
// Taken from the vendors' pricing pages in 2025-11 (openai.com/api/pricing,
// anthropic.com/pricing, ai.google.dev/gemini-api/docs/pricing,
// api-docs.deepseek.com/quick_start/pricing, Alibaba Model Studio
// international prices); prices change, so configuration can override them
// (see PriceOf). Where a vendor has tiers, the standard tier for prompts
// under 200K tokens is used. OpenAI, Google, DeepSeek and Qwen do not charge
// for cache writes apart, so those entries leave CacheWritePerM zero;
// Anthropic's is the 5-minute cache write.
var prices = []fragment[Price]{
	{"gpt-4o", Price{InputPerM: 2.50, OutputPerM: 10.00, CacheReadPerM: 1.25}},
	{"gpt-4o-mini", Price{InputPerM: 0.15, OutputPerM: 0.60, CacheReadPerM: 0.075}},
	{"gpt-4.1", Price{InputPerM: 2.00, OutputPerM: 8.00, CacheReadPerM: 0.50}},
	{"gpt-4.1-mini", Price{InputPerM: 0.40, OutputPerM: 1.60, CacheReadPerM: 0.10}},
	{"gpt-4.1-nano", Price{InputPerM: 0.10, OutputPerM: 0.40, CacheReadPerM: 0.025}},
	{"gpt-5", Price{InputPerM: 1.25, OutputPerM: 10.00, CacheReadPerM: 0.125}},
	{"gpt-5-mini", Price{InputPerM: 0.25, OutputPerM: 2.00, CacheReadPerM: 0.025}},
	{"gpt-5-nano", Price{InputPerM: 0.05, OutputPerM: 0.40, CacheReadPerM: 0.005}},
	{"o3", Price{InputPerM: 2.00, OutputPerM: 8.00, CacheReadPerM: 0.50}},
	{"o3-mini", Price{InputPerM: 1.10, OutputPerM: 4.40, CacheReadPerM: 0.55}},
	{"o3-pro", Price{InputPerM: 20.00, OutputPerM: 80.00}},
	{"o4-mini", Price{InputPerM: 1.10, OutputPerM: 4.40, CacheReadPerM: 0.275}},

	{"claude-sonnet-4", Price{InputPerM: 3.00, OutputPerM: 15.00, CacheReadPerM: 0.30, CacheWritePerM: 3.75}},
	{"claude-3-7-sonnet", Price{InputPerM: 3.00, OutputPerM: 15.00, CacheReadPerM: 0.30, CacheWritePerM: 3.75}},
	{"claude-3-5-sonnet", Price{InputPerM: 3.00, OutputPerM: 15.00, CacheReadPerM: 0.30, CacheWritePerM: 3.75}},
	{"claude-3.7-sonnet", Price{InputPerM: 3.00, OutputPerM: 15.00, CacheReadPerM: 0.30, CacheWritePerM: 3.75}},
	{"claude-3.5-sonnet", Price{InputPerM: 3.00, OutputPerM: 15.00, CacheReadPerM: 0.30, CacheWritePerM: 3.75}},
	{"claude-opus-4", Price{InputPerM: 15.00, OutputPerM: 75.00, CacheReadPerM: 1.50, CacheWritePerM: 18.75}},
	{"claude-opus-4-5", Price{InputPerM: 5.00, OutputPerM: 25.00, CacheReadPerM: 0.50, CacheWritePerM: 6.25}},
	{"claude-opus-4.5", Price{InputPerM: 5.00, OutputPerM: 25.00, CacheReadPerM: 0.50, CacheWritePerM: 6.25}},
	{"claude-3-5-haiku", Price{InputPerM: 0.80, OutputPerM: 4.00, CacheReadPerM: 0.08, CacheWritePerM: 1.00}},
	{"claude-3.5-haiku", Price{InputPerM: 0.80, OutputPerM: 4.00, CacheReadPerM: 0.08, CacheWritePerM: 1.00}},
	{"claude-haiku-4", Price{InputPerM: 1.00, OutputPerM: 5.00, CacheReadPerM: 0.10, CacheWritePerM: 1.25}},

	{"gemini-2.5-pro", Price{InputPerM: 1.25, OutputPerM: 10.00, CacheReadPerM: 0.31}},
	{"gemini-2.5-flash", Price{InputPerM: 0.30, OutputPerM: 2.50, CacheReadPerM: 0.075}},
	{"gemini-2.5-flash-lite", Price{InputPerM: 0.10, OutputPerM: 0.40, CacheReadPerM: 0.025}},
	{"gemini-2.0-flash", Price{InputPerM: 0.10, OutputPerM: 0.40, CacheReadPerM: 0.025}},

	// DeepSeek V3.2 prices, the same for both modes since 2025-09-29; the
	// cache-miss price is the input price.
	{"deepseek-chat", Price{InputPerM: 0.28, OutputPerM: 0.42, CacheReadPerM: 0.028}},
	{"deepseek-reasoner", Price{InputPerM: 0.28, OutputPerM: 0.42, CacheReadPerM: 0.028}},

	// Qwen bills implicit cache hits at 20% of the input price.
	{"qwen-max", Price{InputPerM: 1.60, OutputPerM: 6.40, CacheReadPerM: 0.32}},
	{"qwen-plus", Price{InputPerM: 0.40, OutputPerM: 1.20, CacheReadPerM: 0.08}},
	{"qwen-turbo", Price{InputPerM: 0.05, OutputPerM: 0.20, CacheReadPerM: 0.01}},
}

// PriceOf returns the price of model and whether one is known. overrides
// (from configuration, keyed like the table by lower-case name fragment)
// are consulted first, with the same longest-match rule; then the
// built-in table.
func PriceOf(model string, overrides map[string]Price) (Price, bool) {
	if len(overrides) > 0 {
		lower := make([]fragment[Price], 0, len(overrides))
		for k, p := range overrides {
			lower = append(lower, fragment[Price]{strings.ToLower(k), p})
		}
		if p, ok := longestMatch(model, lower); ok {
			return p, true
		}
	}
	return longestMatch(model, prices)
}

// Cost returns the US dollars a call with usage u cost at price p.
//
// Usage.InputTokens is the whole prompt on every vendor, cache reads and
// writes included (the Anthropic adapter adds them in), so the uncached
// part is InputTokens − CacheReadTokens − CacheWriteTokens. OutputTokens
// already includes reasoning: OpenAI's completion_tokens and the Responses
// API's output_tokens contain reasoning_tokens, DeepSeek's completion
// tokens contain the reasoning_content, and Anthropic bills thinking as
// output_tokens; ReasoningTokens is a breakdown and is not added again.
// Some servers (Gemini's OpenAI-compatible endpoint) count hidden thinking
// only in the total, so a TotalTokens above input plus output is billed as
// further output.
func Cost(p Price, u Usage) float64 {
	read, write := u.CacheReadTokens, u.CacheWriteTokens
	uncached := max(u.InputTokens-read-write, 0)
	readPrice, writePrice := p.CacheReadPerM, p.CacheWritePerM
	if readPrice == 0 {
		readPrice = p.InputPerM
	}
	if writePrice == 0 {
		writePrice = p.InputPerM
	}
	output := u.OutputTokens
	if hidden := u.TotalTokens - u.InputTokens - u.OutputTokens; u.TotalTokens > 0 && hidden > 0 {
		output += hidden
	}
	dollars := float64(uncached)*p.InputPerM +
		float64(read)*readPrice +
		float64(write)*writePrice +
		float64(output)*p.OutputPerM
	return dollars / 1_000_000
}
