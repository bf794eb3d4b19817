package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFragmentTablesHaveDistinctLowerCaseKeys checks what a map literal
// checked at compile time: each fragment appears once; and what matching
// needs: fragments are lower case.
func TestFragmentTablesHaveDistinctLowerCaseKeys(t *testing.T) {
	check := func(name string, frags []string) {
		seen := map[string]bool{}
		for _, f := range frags {
			if seen[f] {
				t.Errorf("%s lists %q twice", name, f)
			}
			if f == "" || f != strings.ToLower(f) {
				t.Errorf("%s fragment %q is not a non-empty lower-case name", name, f)
			}
			seen[f] = true
		}
	}
	var windows, priced []string
	for _, e := range contextWindows {
		windows = append(windows, e.frag)
	}
	for _, e := range prices {
		priced = append(priced, e.frag)
	}
	check("contextWindows", windows)
	check("prices", priced)
}

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int
		known bool
	}{
		{"gpt-4o", 128_000, true},
		{"gpt-4o-mini-2024-07-18", 128_000, true},
		{"gpt-4", 8_192, true},
		{"gpt-4-turbo", 128_000, true},
		{"gpt-4.1-mini", 1_047_576, true},
		{"gpt-5", 400_000, true},
		{"gpt-5-chat-latest", 128_000, true}, // longer fragment beats gpt-5
		{"o1", 200_000, true},
		{"o1-mini", 128_000, true}, // longer fragment beats o1
		{"openai/o3-mini", 200_000, true},
		{"o4-mini", 200_000, true},
		{"GPT-4O", 128_000, true}, // case does not matter
		{"claude-3-5-sonnet-20241022", 200_000, true},
		{"anthropic/claude-sonnet-4", 200_000, true},
		{"claude-opus-4-1-20250805", 200_000, true},
		{"gemini-1.5-pro-002", 2_097_152, true},
		{"gemini-1.5-flash", 1_048_576, true},
		{"gemini-2.5-pro", 1_048_576, true},
		{"deepseek-chat", 128_000, true},
		{"deepseek-reasoner", 128_000, true},
		{"qwen2.5:7b", 32_768, true},
		{"Qwen/Qwen3-235B-A22B", 32_768, true},
		{"qwen3-coder-plus", 262_144, true},
		{"qwen-plus-latest", 131_072, true},
		{"qwen-turbo", 1_000_000, true},
		{"qwen-max", 32_768, true},
		{"meta-llama/Llama-3.3-70B-Instruct-Turbo", 131_072, true},
		{"llama3.1:8b", 131_072, true},
		{"llama3:8b", 8_192, true},
		{"mistral-large-latest", 131_072, true},
		{"mistralai/Mistral-7B-Instruct-v0.3", 32_768, true},
		{"open-mixtral-8x22b", 65_536, true},
		{"codestral-2501", 256_000, true},
		{"moonshot-v1-8k", 8_192, true},
		{"kimi-k2-0905-preview", 262_144, true},
		{"kimi-k2-0711-preview", 131_072, true},
		{"glm-4.6", 200_000, true},
		{"glm-4.5-air", 131_072, true},
		{"unknown-model", DefaultContextWindow, false},
		{"", DefaultContextWindow, false},
		{"turbo3", DefaultContextWindow, false}, // "o3" inside a word is no match
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, known := ContextWindow(tt.model)
			if got != tt.want || known != tt.known {
				t.Errorf("ContextWindow(%q) = %d, %v; want %d, %v", tt.model, got, known, tt.want, tt.known)
			}
		})
	}
}

func TestWindowResolveOrder(t *testing.T) {
	w := NewWindow("unknown-model", 0)
	check := func(wantN int, wantSrc WindowSource) {
		t.Helper()
		if n, src := w.Resolve(); n != wantN || src != wantSrc {
			t.Errorf("Resolve = %d, %s; want %d, %s", n, src, wantN, wantSrc)
		}
	}
	check(DefaultContextWindow, SourceDefault)

	w = NewWindow("gpt-4o", 0)
	check(128_000, SourceTable)
	w.SetProbed(64_000)
	check(64_000, SourceProbed)
	w.SetProbed(0) // ignored
	check(64_000, SourceProbed)

	w = NewWindow("gpt-4o", 32_000)
	w.SetProbed(64_000)
	check(32_000, SourceConfigured)
	w.StepDown("context_length_exceeded")
	check(24_000, SourceOverflow)
	if w.Tokens() != 24_000 {
		t.Errorf("Tokens = %d, want 24000", w.Tokens())
	}
}

func TestStepDown(t *testing.T) {
	// unclassified names messages Classify does not map to
	// context_overflow; StepDown would still read them. Every vendor's is
	// classified now.
	unclassified := map[string]bool{}
	tests := []struct {
		name  string
		start int
		msg   string
		want  int
	}{
		{"openai", 200_000,
			"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
			128_000},
		{"vllm completion", 131_072,
			"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
			32_768},
		{"vllm max_tokens too large", 131_072,
			"'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 16384 tokens and your request has 14000 input tokens (4096 > 16384 - 14000).",
			16_384},
		{"anthropic", 1_000_000, "prompt is too long: 210000 tokens > 200000 maximum", 200_000},
		{"mistral", 131_072, "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", 32_768},
		{"gemini", 2_000_000, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1_048_576},
		{"llama.cpp", 32_768, "request (40000 tokens) exceeds the available context size (16384 tokens), try increasing it", 16_384},
		{"lm studio", 32_768, "Trying to keep the first 20000 tokens when context the overflows. However, the model is loaded with context length of only 12000 tokens, which is not enough.", 12_000},
		{"number with commas", 200_000, "This model's maximum context length is 65,536 tokens.", 65_536},
		{"ollama states no number", 32_768, "the input length exceeds the context length", 24_576},
		{"openai responses states no number", 400_000, "Your input exceeds the context window of this model. Please adjust your input and try again.", 300_000},
		{"stated limit not below current steps down", 128_000, "This model's maximum context length is 128000 tokens.", 96_000},
		{"floor", 10_000, "prompt too long", MinContextWindow},
		{"stated limit below floor", 32_768, "This model's maximum context length is 4096 tokens.", MinContextWindow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"error": map[string]string{"message": tt.msg}})
			if got := KindOf(ParseError("p", 400, nil, body)) == ErrContextOverflow; got != !unclassified[tt.name] {
				t.Errorf("classified as context_overflow: %v, want %v", got, !unclassified[tt.name])
			}
			w := NewWindow("m", tt.start)
			if got := w.StepDown(tt.msg); got != tt.want {
				t.Errorf("StepDown from %d = %d, want %d", tt.start, got, tt.want)
			}
			if got := w.Tokens(); got != tt.want {
				t.Errorf("Tokens after StepDown = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestStepDownRepeats(t *testing.T) {
	w := NewWindow("gpt-4o", 0)
	want := []int{96_000, 72_000, 54_000, 40_500, 30_375, 22_781, 17_085, 12_813, 9_609, 8_192, 8_192}
	for i, wn := range want {
		if got := w.StepDown("prompt too long"); got != wn {
			t.Fatalf("step %d: %d, want %d", i+1, got, wn)
		}
	}
}
