package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestEstimateText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"one char rounds up", "a", 1},
		{"four chars", "abcd", 1},
		{"five chars", "abcde", 2},
		{"latin sentence", "The quick brown fox jumps over the lazy dog.", 11}, // 44 runes
		{"accented letters count as runes not bytes", "éééé", 1},
		{"chinese", "你好世界", 4},
		{"japanese kana and kanji", "こんにちは世界", 7},
		{"korean", "안녕하세요", 5},
		{"cjk punctuation", "你好，世界。", 6},
		{"full-width letters", "ＡＢＣ", 3},
		{"mixed", "hello 世界 world", 2 + 3}, // 2 CJK + 12 other runes
		{"emoji is not cjk", "🙂🙂🙂🙂", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateText(tt.in); got != tt.want {
				t.Errorf("EstimateText(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestEstimateMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want int
	}{
		{"user text", UserMessage("abcdefgh"), messageOverhead + 2},
		{"empty assistant", Message{Role: RoleAssistant}, messageOverhead},
		{"image costs ImageTokens", Message{Role: RoleUser, Content: []Part{TextPart("look"), ImagePart("https://x/y.png")}},
			messageOverhead + 1 + ImageTokens},
		{"two images", Message{Role: RoleUser, Content: []Part{ImagePart("a"), ImagePart("b")}},
			messageOverhead + 2*ImageTokens},
		{"tool call counts id, name and arguments",
			AssistantMessage("", ToolCall{ID: "call", Name: "read_file", Arguments: `{"path":"a.go"}`}),
			messageOverhead + toolCallOverhead + 1 + 3 + 4},
		{"tool result counts call id, name and content",
			ToolResultMessage("call", "read_file", "package main"),
			messageOverhead + 1 + 3 + 3},
		{"visible reasoning is not sent back", Message{Role: RoleAssistant, Reasoning: strings.Repeat("x", 400)}, messageOverhead},
		{"reasoning blocks are sent back", Message{Role: RoleAssistant, ReasoningBlocks: []ReasoningBlock{
			{Type: "thinking", Text: "abcdefgh", Signature: "sig-not-counted"},
			{Type: "redacted_thinking", Data: "abcd"},
		}}, messageOverhead + 2 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateMessage(tt.msg); got != tt.want {
				t.Errorf("EstimateMessage = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEstimateRequest(t *testing.T) {
	msgs := []Message{UserMessage("abcd"), AssistantMessage("abcd")}
	tool := ToolSpec{Name: "grep", Description: "Search files.", Parameters: json.RawMessage(`{"type":"object"}`)}
	got := EstimateRequest("You are hermes.", msgs, []ToolSpec{tool})
	want := replyPriming +
		messageOverhead + 4 + // system prompt, 15 runes
		2*(messageOverhead+1) +
		toolSpecOverhead + 1 + 4 + 5
	if got != want {
		t.Errorf("EstimateRequest = %d, want %d", got, want)
	}
	if got := EstimateRequest("", nil, nil); got != replyPriming {
		t.Errorf("empty request = %d, want %d", got, replyPriming)
	}
}

func TestTally(t *testing.T) {
	system := "You are hermes."
	conv := []Message{UserMessage("hello"), AssistantMessage("hi there"), UserMessage(strings.Repeat("a", 400))}

	var tally Tally
	if got, want := tally.Estimate(system, conv, nil), EstimateRequest(system, conv, nil); got != want {
		t.Fatalf("before any usage: %d, want the full estimate %d", got, want)
	}

	// The first call sent the first message; the reply is conv[1] and is
	// counted by the output tokens; conv[2] is new and estimated.
	tally.Observe(Usage{InputTokens: 5_000, OutputTokens: 70}, 1)
	if got, want := tally.Estimate(system, conv, nil), 5_000+70+EstimateMessage(conv[2]); got != want {
		t.Errorf("after usage: %d, want %d", got, want)
	}

	// Nothing new after the reply: the reported counts alone.
	if got := tally.Estimate(system, conv[:2], nil); got != 5_070 {
		t.Errorf("reply only: %d, want 5070", got)
	}

	// A call without usage leaves the last observation standing.
	tally.Observe(Usage{}, 3)
	if got, want := tally.Estimate(system, conv, nil), 5_070+EstimateMessage(conv[2]); got != want {
		t.Errorf("after empty usage: %d, want %d", got, want)
	}

	// When the message after the covered ones is not a reply (the call
	// failed before answering), it is estimated too.
	tally.Observe(Usage{InputTokens: 100, OutputTokens: 0, CacheReadTokens: 50}, 2)
	if got, want := tally.Estimate(system, conv, nil), 100+EstimateMessage(conv[2]); got != want {
		t.Errorf("user message after covered: %d, want %d", got, want)
	}

	// A conversation shorter than the covered prefix was compressed without
	// Reset: fall back to a full estimate.
	short := []Message{UserMessage("summary")}
	if got, want := tally.Estimate(system, short, nil), EstimateRequest(system, short, nil); got != want {
		t.Errorf("shrunk conversation: %d, want full estimate %d", got, want)
	}

	tally.Reset()
	if got, want := tally.Estimate(system, conv, nil), EstimateRequest(system, conv, nil); got != want {
		t.Errorf("after Reset: %d, want the full estimate %d", got, want)
	}
}

// conversation returns n messages shaped like a coding session: user turns,
// model turns with tool calls, and tool results with file contents.
func conversation(n int) []Message {
	msgs := make([]Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		switch i % 3 {
		case 0:
			msgs = append(msgs, UserMessage(fmt.Sprintf("Please look at file %d and fix the bug. 请检查这个文件。", i)))
		case 1:
			msgs = append(msgs, AssistantMessage("Reading the file.", ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i)}))
		default:
			msgs = append(msgs, ToolResultMessage(fmt.Sprintf("call_%d", i-1), "read_file", strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 40)))
		}
	}
	return msgs
}

func BenchmarkEstimateRequest(b *testing.B) {
	msgs := conversation(200)
	tools := []ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	b.ReportAllocs()
	for b.Loop() {
		_ = EstimateRequest("You are hermes.", msgs, tools)
	}
}

func TestEstimateBytesMatchesText(t *testing.T) {
	for _, s := range []string{"", "a", `{"path":"a.go"}`, "你好，世界 hello", "ＡＢＣ🙂é"} {
		if got, want := estimateBytes([]byte(s)), EstimateText(s); got != want {
			t.Errorf("estimateBytes(%q) = %d, EstimateText = %d", s, got, want)
		}
	}
}
