package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// The Responses body from the turn's cache is the bytes of encoding the
// whole request.
func TestResponsesCachedBodyIsTheSameBytes(t *testing.T) {
	r := NewResponses(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt"})
	tools := []llm.ToolSpec{{Name: "terminal", Description: "Run <a> command", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "todo"}}
	cache := new(llm.WireCache)
	msgs := []llm.Message{llm.SystemMessage("You are hermes."), llm.SystemMessage("More."), llm.UserMessage("列出 \"x\" & <y>")}
	for round := range 5 {
		req := &llm.Request{Messages: msgs, Cache: cache, MaxTokens: 10 * round}
		if round%2 == 1 {
			req.Tools, req.ToolChoice, req.ReasoningEffort = tools, "todo", "low"
		}
		got, err := r.requestBody(req)
		if err != nil {
			t.Fatal(err)
		}
		plain := *req
		plain.Cache = nil
		w, _ := r.requestBody(&plain)
		want, _ := json.Marshal(w)
		if enc, ok := got.(llm.Encoded); !ok || string(enc) != string(want) {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, want)
		}
		id := fmt.Sprint("call_", round)
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("ok")},
			ReasoningBlocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "rs", Data: "enc", Text: "sum"}, {Type: "reasoning"}},
			ToolCalls:       []llm.ToolCall{{ID: id, Name: "terminal", Arguments: `{}`}}},
			llm.ToolResultMessage(id, "terminal", "out"))
		if round == 2 {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: "i", Content: []llm.Part{llm.ImagePart("data:image/png;base64,AA")}}, llm.Message{Role: llm.RoleAssistant})
		}
	}
}
