package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// chatCaptured is what the server received.
type chatCaptured struct {
	path   string
	header http.Header
	body   map[string]any
}

// chatCapture runs req against a server reached for baseURL (whatever its
// host: the client dials the test server, so base URLs use plain http),
// and returns what the server received. The server answers in the mode
// the body asked for.
func chatCapture(t *testing.T, baseURL string, ep llm.Endpoint, req *llm.Request) chatCaptured {
	t.Helper()
	got := make(chan chatCaptured, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("request body is not a JSON object: %v\n%s", err, data)
		}
		got <- chatCaptured{path: r.URL.Path, header: r.Header.Clone(), body: body}
		if body["stream"] == true {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"r","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	ep.BaseURL = baseURL
	ep.Client = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	resp, err := llm.Generate(t.Context(), NewChat(ep), req)
	if err != nil || resp.Text() != "ok" {
		t.Fatalf("Generate = %+v, %v", resp, err)
	}
	return <-got
}

// chatJSONEqual asserts that got equals the JSON object want.
func chatJSONEqual(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		e, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("wire body =\n%s\nwant\n%s", g, e)
	}
}

func TestChatRequestConversation(t *testing.T) {
	temp := 0.2
	req := &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You are terse."),
			llm.UserMessage("Weather in Oslo and Rome?"),
			{
				Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Checking.")}, Reasoning: "two calls",
				ReasoningBlocks: []llm.ReasoningBlock{{Type: "thinking", Text: "x", Signature: "s"}},
				ToolCalls: []llm.ToolCall{
					{ID: "c1", Name: "weather", Arguments: `{"city":"Oslo"}`},
					{ID: "c2", Name: "weather", Arguments: ""},
				},
			},
			llm.ToolResultMessage("c1", "weather", "rain"),
			llm.ToolResultMessage("c2", "weather", "sun"),
			llm.AssistantMessage("", llm.ToolCall{ID: "c3", Name: "clock", Arguments: `{}`}),
			llm.ToolResultMessage("c3", "clock", ""),
			llm.SystemMessage("Be brief."),
			{Role: llm.RoleUser, Content: []llm.Part{
				llm.TextPart("What is this?"), llm.ImagePart("data:image/png;base64,iVBORw0KGgo="), llm.TextPart("And this?"),
				llm.ImagePart("https://example.com/cat.jpg"),
			}},
			llm.AssistantMessage(""),
		},
		Tools: []llm.ToolSpec{
			{Name: "weather", Description: "Current weather.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "clock"},
		},
		ToolChoice:      "required",
		MaxTokens:       512,
		Temperature:     &temp,
		ReasoningEffort: "low",
	}
	got := chatCapture(t, "http://llm.example/v1", llm.Endpoint{Name: "test", APIKey: "sk-test", Model: "local-model",
		Headers: map[string]string{"HTTP-Referer": "https://hermes.example"}}, req)
	if got.path != "/v1/chat/completions" {
		t.Errorf("path = %q", got.path)
	}
	for k, v := range map[string]string{"Authorization": "Bearer sk-test", "Content-Type": "application/json", "Http-Referer": "https://hermes.example"} {
		if got.header.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.header.Get(k), v)
		}
	}
	chatJSONEqual(t, got.body, `{
	  "model": "local-model",
	  "messages": [
	    {"role": "system", "content": "You are terse."},
	    {"role": "user", "content": "Weather in Oslo and Rome?"},
	    {"role": "assistant", "content": "Checking.", "tool_calls": [
	      {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
	      {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
	    ]},
	    {"role": "tool", "tool_call_id": "c1", "content": "rain"},
	    {"role": "tool", "tool_call_id": "c2", "content": "sun"},
	    {"role": "assistant", "tool_calls": [
	      {"id": "c3", "type": "function", "function": {"name": "clock", "arguments": "{}"}}
	    ]},
	    {"role": "tool", "tool_call_id": "c3", "content": ""},
	    {"role": "system", "content": "Be brief."},
	    {"role": "user", "content": [
	      {"type": "text", "text": "What is this?"},
	      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
	      {"type": "text", "text": "And this?"},
	      {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}}
	    ]},
	    {"role": "assistant", "content": ""}
	  ],
	  "tools": [
	    {"type": "function", "function": {"name": "weather", "description": "Current weather.",
	      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
	    {"type": "function", "function": {"name": "clock", "parameters": {"type": "object", "properties": {}}}}
	  ],
	  "tool_choice": "required",
	  "max_tokens": 512,
	  "temperature": 0.2,
	  "reasoning_effort": "low",
	  "stream": true,
	  "stream_options": {"include_usage": true}
	}`)
}

func TestChatRequestHostsAndModes(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("hi")}
	tools := []llm.ToolSpec{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}
	fTools := `[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	tests := []struct {
		name, baseURL string
		req           llm.Request
		want          string
	}{
		{"openai host takes max_completion_tokens; request model wins", "http://api.openai.com/v1",
			llm.Request{Model: "o4-mini", Messages: msgs, MaxTokens: 100},
			`{"model":"o4-mini","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100,
			  "stream":true,"stream_options":{"include_usage":true}}`},
		{"mistral host gets no stream_options", "http://api.mistral.ai/v1",
			llm.Request{Messages: msgs, MaxTokens: 100},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"max_tokens":100,"stream":true}`},
		{"no stream", "http://localhost:11434/v1",
			llm.Request{Messages: msgs, NoStream: true},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"stream":false}`},
		{"tool choice empty is left out", "http://llm.example/v1",
			llm.Request{Messages: msgs, Tools: tools, NoStream: true},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"tools":` + fTools + `,"stream":false}`},
		{"tool choice auto", "http://llm.example/v1",
			llm.Request{Messages: msgs, Tools: tools, ToolChoice: "auto", NoStream: true},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"tools":` + fTools + `,"tool_choice":"auto","stream":false}`},
		{"tool choice none", "http://llm.example/v1",
			llm.Request{Messages: msgs, Tools: tools, ToolChoice: "none", NoStream: true},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"tools":` + fTools + `,"tool_choice":"none","stream":false}`},
		{"tool choice by name", "http://llm.example/v1",
			llm.Request{Messages: msgs, Tools: tools, ToolChoice: "f", NoStream: true},
			`{"model":"ep-model","messages":[{"role":"user","content":"hi"}],"tools":` + fTools + `,
			  "tool_choice":{"type":"function","function":{"name":"f"}},"stream":false}`},
		{"extra merged last, overriding", "http://openrouter.ai/api/v1",
			llm.Request{Messages: msgs, NoStream: true, Extra: map[string]any{
				"provider": map[string]any{"order": []string{"DeepInfra"}}, "stream": false, "model": "x/override"}},
			`{"model":"x/override","messages":[{"role":"user","content":"hi"}],"stream":false,
			  "provider":{"order":["DeepInfra"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chatCapture(t, tt.baseURL, llm.Endpoint{Name: "test", Model: "ep-model"}, &tt.req)
			chatJSONEqual(t, got.body, tt.want)
			if got.header.Get("Authorization") != "" {
				t.Errorf("Authorization sent without an API key: %q", got.header.Get("Authorization"))
			}
		})
	}
}

func TestChatListModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"qwen3","owned_by":"vllm","max_model_len":32768}]}`)
	}))
	defer srv.Close()
	models, err := NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL + "/v1/", APIKey: "k"}).ListModels(t.Context())
	if err != nil || len(models) != 1 || models[0].ID != "qwen3" || models[0].ContextLength != 32768 {
		t.Fatalf("ListModels = %+v, %v", models, err)
	}
}
