package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// responsesAssertWire compares the JSON body a server received with the expected
// JSON text, as values (key order and spacing do not matter).
func responsesAssertWire(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		e, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("wire body =\n%s\nwant\n%s", g, e)
	}
}

// responsesTextServer serves the plain text recording, for tests that
// look only at what was sent.
func responsesTextServer(t *testing.T) *responsesServer {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "responses", "stream-text.sse"))
	if err != nil {
		t.Fatal(err)
	}
	return responsesNewServer(t, "text/event-stream", body)
}

// TestResponsesRequestMapping checks the wire body built from canonical
// requests, field by field, as the server received it.
func TestResponsesRequestMapping(t *testing.T) {
	temp, hot := 0.2, 0.9
	weather := llm.ToolSpec{Name: "get_weather", Description: "Current weather for a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{
			name: "minimal: endpoint model, stateless, streamed",
			req:  llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}},
			want: `{"model":"gpt-test","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],"store":false,"stream":true}`,
		},
		{
			name: "system prompts, image, limits, no stream",
			req: llm.Request{
				Model: "gpt-5", NoStream: true, MaxTokens: 256, Temperature: &temp,
				Messages: []llm.Message{
					llm.SystemMessage("You are terse."),
					{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("What is this?"), llm.ImagePart("data:image/png;base64,iVBORw0KGgo=")}},
					llm.SystemMessage("Answer in French."),
				},
			},
			want: `{"model":"gpt-5","instructions":"You are terse.\n\nAnswer in French.",
				"input":[{"role":"user","content":[{"type":"input_text","text":"What is this?"},
					{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}],
				"max_output_tokens":256,"temperature":0.2,"store":false,"stream":false}`,
		},
		{
			name: "assistant text replayed; foreign and unusable reasoning blocks left out",
			req: llm.Request{Messages: []llm.Message{
				llm.UserMessage("hi"),
				{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Hello!")}, ReasoningBlocks: []llm.ReasoningBlock{
					{Type: "thinking", Text: "anthropic thought", Signature: "sig"},
					{Type: "reasoning", ID: "rs_stored_only"},
				}},
				llm.UserMessage("bye"),
			}},
			want: `{"model":"gpt-test","input":[
				{"role":"user","content":[{"type":"input_text","text":"hi"}]},
				{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello!"}]},
				{"role":"user","content":[{"type":"input_text","text":"bye"}]}],"store":false,"stream":true}`,
		},
		{
			name: "named tool choice, tool without parameters",
			req: llm.Request{Messages: []llm.Message{llm.UserMessage("t")}, ToolChoice: "ping",
				Tools: []llm.ToolSpec{{Name: "ping"}}},
			want: `{"model":"gpt-test","input":[{"role":"user","content":[{"type":"input_text","text":"t"}]}],
				"tools":[{"type":"function","name":"ping","parameters":{"type":"object","properties":{}},"strict":false}],
				"tool_choice":{"type":"function","name":"ping"},"store":false,"stream":true}`,
		},
		{
			name: "tool choice required, reasoning effort",
			req: llm.Request{Messages: []llm.Message{llm.UserMessage("t")}, ToolChoice: "required",
				Tools: []llm.ToolSpec{weather}, ReasoningEffort: "high"},
			want: `{"model":"gpt-test","input":[{"role":"user","content":[{"type":"input_text","text":"t"}]}],
				"tools":[{"type":"function","name":"get_weather","description":"Current weather for a city.",
					"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":false}],
				"tool_choice":"required","reasoning":{"effort":"high","summary":"auto"},
				"include":["reasoning.encrypted_content"],"store":false,"stream":true}`,
		},
		{
			name: "extra fields merged last, overriding",
			req: llm.Request{Messages: []llm.Message{llm.UserMessage("t")}, Temperature: &hot, ToolChoice: "none",
				Extra: map[string]any{"temperature": 0.5, "prompt_cache_key": "session-42", "parallel_tool_calls": false}},
			want: `{"model":"gpt-test","input":[{"role":"user","content":[{"type":"input_text","text":"t"}]}],
				"tool_choice":"none","temperature":0.5,"prompt_cache_key":"session-42","parallel_tool_calls":false,
				"store":false,"stream":true}`,
		},
		{
			name: "tool result with an image",
			req: llm.Request{Messages: []llm.Message{
				llm.UserMessage("shoot"),
				llm.AssistantMessage("", llm.ToolCall{ID: "call_s", Name: "screenshot", Arguments: "{}"}),
				{Role: llm.RoleTool, ToolCallID: "call_s", Name: "screenshot",
					Content: []llm.Part{llm.TextPart("done"), llm.ImagePart("https://example.com/s.png")}},
			}},
			want: `{"model":"gpt-test","input":[
				{"role":"user","content":[{"type":"input_text","text":"shoot"}]},
				{"type":"function_call","call_id":"call_s","name":"screenshot","arguments":"{}"},
				{"type":"function_call_output","call_id":"call_s","output":[{"type":"input_text","text":"done"},
					{"type":"input_image","image_url":"https://example.com/s.png"}]}],"store":false,"stream":true}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := responsesTextServer(t)
			if _, err := llm.Generate(t.Context(), srv.provider(), &tc.req); err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			r := srv.requests[0]
			srv.mu.Unlock()
			if r.Method != "POST" || r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer test-key" {
				t.Errorf("request %s %s auth %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
			}
			responsesAssertWire(t, srv.lastBody(t), tc.want)
		})
	}
}

// TestResponsesToolRoundTrip runs two turns: the model answers with a
// reasoning item and two function calls, hermes runs the tools, and the
// second request must carry the whole conversation back, the encrypted
// reasoning before the calls and each output naming its call_id.
func TestResponsesToolRoundTrip(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "responses", "stream-parallel-calls.sse"))
	if err != nil {
		t.Fatal(err)
	}
	first := responsesNewServer(t, "text/event-stream", body)
	tools := []llm.ToolSpec{{Name: "get_weather", Description: "Current weather for a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"}}}`)}}
	msgs := []llm.Message{
		llm.SystemMessage("You are terse."),
		llm.UserMessage("Weather in Paris and Tokyo?"),
	}
	req := &llm.Request{Model: "gpt-5", Messages: msgs, Tools: tools, ToolChoice: "auto", ReasoningEffort: "low"}
	resp, err := llm.Generate(t.Context(), first.provider(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 2 {
		t.Fatalf("first turn calls = %+v", resp.Message.ToolCalls)
	}
	msgs = append(msgs, resp.Message,
		llm.ToolResultMessage(resp.Message.ToolCalls[0].ID, "get_weather", "18°C, cloudy"),
		llm.ToolResultMessage(resp.Message.ToolCalls[1].ID, "get_weather", "24°C, clear"))

	second := responsesTextServer(t)
	req2 := &llm.Request{Model: "gpt-5", Messages: msgs, Tools: tools, ToolChoice: "auto", ReasoningEffort: "low"}
	final, err := llm.Generate(t.Context(), second.provider(), req2)
	if err != nil {
		t.Fatal(err)
	}
	if final.Text() == "" {
		t.Error("second turn has no text")
	}
	responsesAssertWire(t, second.lastBody(t), `{
		"model":"gpt-5","instructions":"You are terse.",
		"input":[
			{"role":"user","content":[{"type":"input_text","text":"Weather in Paris and Tokyo?"}]},
			{"type":"reasoning","id":"rs_par_01","encrypted_content":"enc-par-final",
				"summary":[{"type":"summary_text","text":"**Two lookups**\n\nCall the weather tool twice."}]},
			{"type":"function_call","call_id":"call_paris","name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"c\"}"},
			{"type":"function_call","call_id":"call_tokyo","name":"get_weather","arguments":"{\"city\":\"Tokyo\",\"unit\":\"c\"}"},
			{"type":"function_call_output","call_id":"call_paris","output":"18°C, cloudy"},
			{"type":"function_call_output","call_id":"call_tokyo","output":"24°C, clear"}
		],
		"tools":[{"type":"function","name":"get_weather","description":"Current weather for a city.",
			"parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"}}},"strict":false}],
		"tool_choice":"auto","reasoning":{"effort":"low","summary":"auto"},
		"include":["reasoning.encrypted_content"],"store":false,"stream":true}`)
}
