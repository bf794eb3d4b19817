package llm

import "strings"

// DefaultContextWindow is the window assumed for a model hermes knows
// nothing about: the size most current models offer at least.
const DefaultContextWindow = 128_000

// contextWindows maps a model family, as a lower-case name fragment, to the
// context window its vendor documents, in tokens. A fragment matches at the
// start of the model name or after a separator ("openai/gpt-4o",
// "meta-llama/Llama-3.3-70B", "qwen2.5:7b"), and the longest matching
// fragment wins, so "gpt-4o-mini" beats "gpt-4" and "o1-mini" beats "o1".
// Numbers were read from the vendors' model pages in 2025.
var contextWindows = []fragment[int]{
	// OpenAI, platform.openai.com/docs/models.
	{"gpt-3.5-turbo", 16_385},
	{"gpt-4", 8_192},
	{"gpt-4-turbo", 128_000},
	{"gpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-5", 400_000},
	{"gpt-5-chat", 128_000},
	{"gpt-oss", 131_072},
	{"o1", 200_000},
	{"o1-mini", 128_000},
	{"o1-preview", 128_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},

	// Anthropic, docs.anthropic.com/en/docs/about-claude/models: every
	// Claude 3, 3.5, 3.7 and 4.x model has 200K (Sonnet 4's 1M is a beta
	// that must be asked for by header).
	{"claude", 200_000},
	{"claude-3", 200_000},
	{"claude-sonnet-4", 200_000},
	{"claude-opus-4", 200_000},
	{"claude-haiku-4", 200_000},

	// Google, ai.google.dev/gemini-api/docs/models.
	{"gemini", 1_048_576},
	{"gemini-1.5", 1_048_576},
	{"gemini-1.5-pro", 2_097_152},
	{"gemini-2", 1_048_576},

	// DeepSeek, api-docs.deepseek.com/quick_start/pricing: 128K for both.
	{"deepseek-chat", 128_000},
	{"deepseek-reasoner", 128_000},

	// Qwen: Alibaba Model Studio model list for the hosted models; the
	// Qwen2.5 and Qwen3 model cards for open weights (native length,
	// without YaRN scaling).
	{"qwen", 32_768},
	{"qwen2.5", 32_768},
	{"qwen3", 32_768},
	{"qwen3-coder", 262_144},
	{"qwen3-max", 262_144},
	{"qwen-max", 32_768},
	{"qwen-plus", 131_072},
	{"qwen-turbo", 1_000_000},

	// Meta Llama model cards: Llama 3 has 8K, 3.1 to 3.3 have 128K.
	{"llama-3", 8_192},
	{"llama3", 8_192},
	{"llama-3.1", 131_072},
	{"llama3.1", 131_072},
	{"llama-3.2", 131_072},
	{"llama3.2", 131_072},
	{"llama-3.3", 131_072},
	{"llama3.3", 131_072},

	// Mistral, docs.mistral.ai/getting-started/models.
	{"mistral", 32_768},
	{"mistral-large", 131_072},
	{"mistral-medium", 131_072},
	{"mistral-small", 131_072},
	{"mistral-nemo", 131_072},
	{"mixtral", 32_768},
	{"mixtral-8x22b", 65_536},
	{"codestral", 256_000},

	// Moonshot, platform.moonshot.ai/docs: the v1 models carry their window
	// in the name; Kimi K2 has 128K, its 0905 release 256K.
	{"moonshot", 131_072},
	{"moonshot-v1-8k", 8_192},
	{"moonshot-v1-32k", 32_768},
	{"moonshot-v1-128k", 131_072},
	{"kimi", 131_072},
	{"kimi-k2-0905", 262_144},

	// Zhipu, docs.z.ai: GLM-4 and 4.5 have 128K, GLM-4.6 200K.
	{"glm", 128_000},
	{"glm-4.5", 131_072},
	{"glm-4.6", 200_000},
}

// ContextWindow returns the documented context window of model from the
// built-in table, and whether the model was found there. An unknown model
// gets DefaultContextWindow and false.
func ContextWindow(model string) (tokens int, known bool) {
	if n, ok := longestMatch(model, contextWindows); ok {
		return n, true
	}
	return DefaultContextWindow, false
}

// fragment is one entry of a table keyed by model name: a lower-case name
// fragment and its value. The built-in tables are slices of fragments
// rather than maps, which the compiler lays out, so that they cost
// nothing at start-up; every lookup reads the whole table anyway.
type fragment[V any] struct {
	frag string
	v    V
}

// longestMatch returns the value of the longest fragment of table that
// occurs in model (compared in lower case) at the start or right after a
// character that is not a letter or digit, and false when none does. Ties
// go to the fragment first in byte order, so the answer never depends on
// the order of the table.
func longestMatch[V any](model string, table []fragment[V]) (V, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	best := -1
	for i, e := range table {
		longer := best < 0 || len(e.frag) > len(table[best].frag) || len(e.frag) == len(table[best].frag) && e.frag < table[best].frag
		if longer && containsAtBoundary(name, e.frag) {
			best = i
		}
	}
	if best < 0 {
		var zero V
		return zero, false
	}
	return table[best].v, true
}

// containsAtBoundary reports whether frag occurs in s at the start or after
// a non-alphanumeric byte, so that "o3" matches "openai/o3-mini" but not
// "gpt-4o3" or "turbo3".
func containsAtBoundary(s, frag string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], frag)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !isAlnum(s[i-1]) {
			return true
		}
		off = i + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
}
