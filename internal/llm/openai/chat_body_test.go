package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// plainBody is the body as encoding the whole request at once gives it,
// which the cached body must equal byte for byte: the provider's prompt
// cache keys on the bytes of the prefix.
func plainBody(t *testing.T, c *Chat, req *llm.Request) string {
	t.Helper()
	w := c.header(req)
	w.Messages, w.Tools = chatMessages(req.Messages), chatTools(req.Tools)
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCachedBodyIsTheSameBytes(t *testing.T) {
	temp := 0.2
	tools := []llm.ToolSpec{
		{Name: "terminal", Description: "Run <a> command & see", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "todo"},
	}
	for _, c := range []*Chat{
		NewChat(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}),
		NewChat(llm.Endpoint{BaseURL: "https://api.openai.com/v1", Model: "gpt"}),
		NewChat(llm.Endpoint{BaseURL: "https://api.mistral.ai/v1"}),
	} {
		cache := new(llm.WireCache)
		msgs := []llm.Message{llm.SystemMessage("You are hermes. <b>&</b>"), llm.UserMessage("列出文件 \u2028 \"quoted\"")}
		for round := range 6 {
			req := &llm.Request{Messages: msgs, Cache: cache, MaxTokens: 100 * round}
			switch round {
			case 1:
				req.Tools, req.ToolChoice = tools, "auto"
			case 2:
				req.Tools, req.ToolChoice, req.Temperature = tools, "todo", &temp
			case 3:
				req.Tools, req.NoStream, req.ReasoningEffort = tools, true, "high"
			case 4:
				req.Model = "other"
			}
			got, err := c.body(req)
			if err != nil {
				t.Fatal(err)
			}
			enc, ok := got.(llm.Encoded)
			if !ok {
				t.Fatalf("round %d: body is %T, want llm.Encoded", round, got)
			}
			if want := plainBody(t, c, req); string(enc) != want {
				t.Fatalf("%s round %d:\n got %s\nwant %s", c.ep.BaseURL, round, enc, want)
			}
			call := llm.ToolCall{ID: fmt.Sprint("call_", round), Name: "terminal", Arguments: `{"command":"ls"}`}
			if round == 2 {
				call.Arguments = ""
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
				llm.ToolResultMessage(call.ID, "terminal", fmt.Sprintf("file%d.txt\n", round)))
			if round == 3 {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("see"), llm.ImagePart("data:image/png;base64,AAAA")}})
			}
		}
	}
}

// With extra fields the body is built the old way, merged; it must still
// carry the messages.
func TestCachedBodyWithExtra(t *testing.T) {
	c := NewChat(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Cache: new(llm.WireCache),
		Extra: map[string]any{"provider": map[string]any{"order": []string{"a"}}}}
	got, err := c.body(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	var w struct {
		Messages []map[string]any `json:"messages"`
		Provider map[string]any   `json:"provider"`
	}
	if err := json.Unmarshal(b, &w); err != nil || len(w.Messages) != 1 || w.Provider == nil {
		t.Errorf("body with extra = %s (%v)", b, err)
	}
}
