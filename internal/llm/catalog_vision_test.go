package llm

import "testing"

func TestSeesImages(t *testing.T) {
	tests := []struct {
		model string
		want  bool
	}{
		{"gpt-4o", true},
		{"openai/gpt-4o-mini", true},
		{"gpt-4.1-nano", true},
		{"gpt-5", true},
		{"o1", true},
		{"o1-mini", false},
		{"o3-mini", false},
		{"o4-mini", true},
		{"claude-sonnet-4-5", true},
		{"anthropic/claude-3.5-haiku", true},
		{"claude-2.1", false},
		{"gemini-2.5-flash", true},
		{"qwen2.5-vl-72b-instruct", true},
		{"llama3.2-vision:11b", true},
		{"llava:13b", true},
		{"gpt-4", false},
		{"gpt-3.5-turbo", false},
		{"deepseek-chat", false},
		{"qwen3-coder", false},
		{"test-model", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := SeesImages(tt.model); got != tt.want {
			t.Errorf("SeesImages(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
	seen := map[string]bool{}
	for _, e := range visionModels {
		if seen[e.frag] {
			t.Errorf("visionModels lists %q twice", e.frag)
		}
		seen[e.frag] = true
	}
}
