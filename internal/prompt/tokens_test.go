package prompt

import (
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"abc", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("word ", 80), 100},
		{"你好世界", 4},
		{"こんにちは", 5},
		{"안녕하세요", 5},
		{"你好，世界。", 6},   // full-width punctuation counts like the characters
		{"hello 世界", 4}, // 6 Latin characters: 2 tokens, plus 2
		{"é", 1},
	}
	for _, c := range cases {
		if got := EstimateTokens(c.text); got != c.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func TestSizes(t *testing.T) {
	p := Prompt{Stable: strings.Repeat("x", 40), Context: "", Volatile: "今天是星期三"}
	want := []Size{
		{Tier: "stable", Chars: 40, Tokens: 10},
		{Tier: "context", Chars: 0, Tokens: 0},
		{Tier: "volatile", Chars: 6, Tokens: 6},
	}
	got := p.Sizes()
	if len(got) != len(want) {
		t.Fatalf("Sizes() = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Sizes()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
