package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// The body put together from the turn's cache must be the bytes encoding
// the whole filled request gives, breakpoints included: Anthropic's prompt
// cache keys on them.
func TestCachedBodyIsTheSameBytes(t *testing.T) {
	tools := []llm.ToolSpec{
		{Name: "terminal", Description: "Run <a> command & see", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "todo"},
	}
	for _, ttl := range []string{"", "1h"} {
		for _, marks := range []bool{true, false} {
			c := New(llm.Endpoint{BaseURL: "http://127.0.0.1:1", Model: "claude", CacheTTL: ttl})
			cache := new(llm.WireCache)
			msgs := []llm.Message{llm.SystemMessage("You are hermes. <b>&</b>"), llm.SystemMessage("Second part."), llm.UserMessage("列出文件 \u2028 \"quoted\"")}
			for round := range 7 {
				req := &llm.Request{Messages: msgs, Cache: cache, CacheBreakpoints: marks, MaxTokens: 100 * round}
				switch round {
				case 1, 2, 3, 6:
					req.Tools, req.ToolChoice = tools, "auto"
				case 4:
					req.ThinkingBudget = 2048
				}
				r, err := c.buildRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.body(req, r)
				if err != nil {
					t.Fatal(err)
				}
				enc, ok := got.(llm.Encoded)
				if !ok {
					t.Fatalf("round %d: body is %T, want llm.Encoded", round, got)
				}
				plain := *req
				plain.Cache = nil
				w, _ := c.buildRequest(&plain)
				c.fill(w, &plain)
				want, err := json.Marshal(w)
				if err != nil {
					t.Fatal(err)
				}
				if string(enc) != string(want) {
					t.Fatalf("ttl %q marks %v round %d:\n got %s\nwant %s", ttl, marks, round, enc, want)
				}
				a := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Calling.")},
					ReasoningBlocks: []llm.ReasoningBlock{{Type: "thinking", Text: "hmm", Signature: "sig"}, {Type: "thinking", Text: "unsigned"}}}
				for k := range 1 + round%2 {
					a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: fmt.Sprint("call_", round, k), Name: "terminal", Arguments: `{"command":"ls"}`})
				}
				msgs = append(msgs, a)
				for _, call := range a.ToolCalls {
					msgs = append(msgs, llm.ToolResultMessage(call.ID, "terminal", fmt.Sprintf("file%d.txt\n", round)))
				}
				switch round {
				case 2:
					msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: "img", Content: []llm.Part{llm.TextPart("shot"), llm.ImagePart("data:image/png;base64,AAAA")}})
				case 3:
					msgs = append(msgs, llm.UserMessage("and then?"), llm.Message{Role: llm.RoleAssistant}) // an empty reply is dropped
				}
			}
		}
	}
}
