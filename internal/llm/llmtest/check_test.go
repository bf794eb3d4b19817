package llmtest

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestCheckDeltas(t *testing.T) {
	resp := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Hello")}, Reasoning: "hm",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "f", Arguments: `{}`}}},
		Usage: llm.Usage{InputTokens: 3, OutputTokens: 2},
	}
	good := []llm.Event{
		{Kind: llm.EventReasoning, Text: "hm"},
		{Kind: llm.EventText, Text: "Hel"}, {Kind: llm.EventText, Text: "lo"},
		{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ID: "c1", Name: "f"}},
		{Kind: llm.EventUsage, Usage: resp.Usage},
	}
	tests := []struct {
		name   string
		events []llm.Event
		want   string // substring of the one expected error; "" for none
	}{
		{"consistent", good, ""},
		{"text short", append([]llm.Event{}, good[0], good[1], good[3], good[4]), "text deltas"},
		{"reasoning missing", good[1:], "reasoning deltas"},
		{"index out of range", append(append([]llm.Event{}, good...), llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: 1}}), "out of range"},
		{"name twice", append(append([]llm.Event{}, good...), llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: 0, Name: "f"}}), "announced twice"},
		{"wrong id", append(append([]llm.Event{}, good...), llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ID: "c2"}}), "fragment id"},
		{"name never announced", append([]llm.Event{}, good[0], good[1], good[2], good[4]), "announced name"},
		{"usage never sent", good[:4], "never sent"},
		{"stale usage", append(append([]llm.Event{}, good...), llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: 1}}), "last usage event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			CheckDeltas(r, tt.events, resp)
			switch {
			case tt.want == "" && len(r.errors) > 0:
				t.Errorf("unexpected errors: %q", r.errors)
			case tt.want != "" && (len(r.errors) != 1 || !strings.Contains(r.errors[0], tt.want)):
				t.Errorf("errors = %q, want one containing %q", r.errors, tt.want)
			}
		})
	}
}

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"a": 1, "b": [2]}`, `{"b":[2],"a":1}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`not json`, `not json`, true},
		{`not json`, `{}`, false},
	} {
		if got := SameJSON(tt.a, tt.b); got != tt.want {
			t.Errorf("SameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
