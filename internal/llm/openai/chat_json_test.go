package openai

import (
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestChatJSONRecordings(t *testing.T) {
	tests := []struct {
		file string
		want chatWant
	}{
		{"json-openai-text.json", chatWant{
			text: "Paris is the capital of France.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 2048, OutputTokens: 9, TotalTokens: 2057, CacheReadTokens: 1920},
			id:    "chatcmpl-J1", model: "gpt-4.1-2025-04-14",
		}},
		{"json-openai-tool-call-content-null.json", chatWant{
			calls:  []llm.ToolCall{{ID: "call_Jx2", Name: "get_weather", Arguments: `{"city":"Oslo","unit":"c"}`}},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 82, OutputTokens: 18, TotalTokens: 100},
			id:    "chatcmpl-J2", model: "gpt-4o-mini-2024-07-18",
		}},
		{"json-deepseek-index-in-message.json", chatWant{
			text: "Checking both.", reasoning: "Two lookups are needed.",
			calls: []llm.ToolCall{
				{ID: "call_00_Ab", Name: "price", Arguments: `{"sku":"A"}`},
				{ID: "call_01_Cd", Name: "price", Arguments: `{"sku":"B"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 900, OutputTokens: 60, TotalTokens: 960, CacheReadTokens: 768, ReasoningTokens: 12},
			id:    "d6e5f4a3-J3", model: "deepseek-chat",
		}},
		{"json-same-index-two-calls.json", chatWant{
			calls: []llm.ToolCall{
				{ID: "chatcmpl-tool-a1", Name: "open", Arguments: `{"url":"https://a.example"}`},
				{ID: "chatcmpl-tool-b2", Name: "open", Arguments: `{"url":"https://b.example"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 300, OutputTokens: 50, TotalTokens: 350},
			id:    "chatcmpl-J4", model: "Qwen/Qwen3-32B",
		}},
		{"json-gemini-empty-ids.json", chatWant{
			calls: []llm.ToolCall{
				{Name: "search", Arguments: `{"q":"weather"}`},
				{Name: "search", Arguments: `{"q":"news"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 40, OutputTokens: 20, TotalTokens: 150},
			id:    "gEmInIiD-J5", model: "gemini-2.5-pro",
		}},
		{"json-arguments-object.json", chatWant{
			calls:  []llm.ToolCall{{ID: "call_obj6", Name: "run", Arguments: `{"cmd":"ls","args":["-l"]}`}},
			finish: llm.FinishToolCalls, raw: "stop",
			usage: llm.Usage{InputTokens: 20, OutputTokens: 10, TotalTokens: 30},
			id:    "chatcmpl-J6", model: "local-model",
		}},
		{"json-magistral-content-array.json", chatWant{
			text: "The sum is 3.", reasoning: "Sum the digits: 1+2=3.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 15, OutputTokens: 30, TotalTokens: 45},
			id:    "a1b2c3d4e5f6J7", model: "magistral-small-latest",
		}},
		{"json-ollama-reasoning.json", chatWant{
			reasoning: "Need the tool.",
			calls:     []llm.ToolCall{{ID: "call_k3j2h1g0", Name: "final_result", Arguments: `{"ok":true}`}},
			finish:    llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 150, OutputTokens: 40, TotalTokens: 190},
			id:    "chatcmpl-88", model: "gpt-oss:20b",
		}},
		{"json-reasoning-details-only.json", chatWant{
			text: "Yes.", reasoning: "Considering the question.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 10, OutputTokens: 64, TotalTokens: 74, ReasoningTokens: 60},
			id:    "gen-1767225600-J9", model: "openai/o4-mini",
		}},
		{"json-reasoning-and-details.json", chatWant{
			text: "42", reasoning: "Think hard.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15},
			id:    "gen-1767225600-J10", model: "deepseek/deepseek-r1",
		}},
		{"json-think-tags.json", chatWant{
			text: "\n\nHello!", reasoning: "\nThe user says hi.\n", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 6, OutputTokens: 14, TotalTokens: 20},
			id:    "chatcmpl-J11", model: "DeepSeek-R1-Distill-Qwen-7B",
		}},
		{"json-finish-length.json", chatWant{
			text: "It was a dark and", finish: llm.FinishLength, raw: "length",
			usage: llm.Usage{InputTokens: 8, OutputTokens: 5, TotalTokens: 13},
			id:    "chatcmpl-J14", model: "mistral-large-latest",
		}},
		{"json-error-envelope.json", chatWant{
			finish: llm.FinishStop, errKind: llm.ErrServer, errText: "Provider returned error", inStream: true,
		}},
		{"json-no-choices.json", chatWant{
			finish: llm.FinishStop, id: "chatcmpl-J13", model: "m",
			errKind: llm.ErrInvalidResponse, errText: "no choices",
		}},
		{"json-not-json.html", chatWant{
			finish: llm.FinishStop, errKind: llm.ErrInvalidResponse, errText: "502 Bad Gateway",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			first := chatCheck(t, chatReplay(t, tt.file, true), tt.want)
			again := chatReplay(t, tt.file, true)
			if second := again[len(again)-1].Response; !reflect.DeepEqual(first, second) {
				t.Errorf("second replay differs:\n%+v\n%+v", first, second)
			}
		})
	}
}

// TestChatJSONWhenStreamAsked checks that a server that ignores "stream"
// and answers with one JSON body is still understood.
func TestChatJSONWhenStreamAsked(t *testing.T) {
	events := chatReplay(t, "json-openai-tool-call-content-null.json", false)
	chatCheck(t, events, chatWant{
		calls:  []llm.ToolCall{{ID: "call_Jx2", Name: "get_weather", Arguments: `{"city":"Oslo","unit":"c"}`}},
		finish: llm.FinishToolCalls, raw: "tool_calls",
		usage: llm.Usage{InputTokens: 82, OutputTokens: 18, TotalTokens: 100},
		id:    "chatcmpl-J2", model: "gpt-4o-mini-2024-07-18",
	})
}
