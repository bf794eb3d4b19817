package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

const okStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_ok\",\"model\":\"m\"}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// send performs req against a server that answers with a tiny valid
// stream, and returns what the server received.
func send(t *testing.T, ep llm.Endpoint, req *llm.Request) *exchange {
	t.Helper()
	c, x := serve(t, 200, okStream)
	if ep.Name != "" || ep.APIKey != "" || ep.Model != "" || ep.BaseURL != "" || ep.CacheTTL != "" {
		base := c.ep.BaseURL + ep.BaseURL // ep.BaseURL is a path suffix here
		ep.BaseURL = base
		c = New(ep)
	}
	if _, _, err := collect(t, c, req); err != nil {
		t.Fatalf("call failed: %v", err)
	}
	return x
}

func TestRequestConversation(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		llm.SystemMessage("You are hermes."),
		llm.SystemMessage("Be brief."),
		llm.UserMessage("What's the weather in Paris and the time?"),
		{
			Role: llm.RoleAssistant,
			ReasoningBlocks: []llm.ReasoningBlock{
				{Type: "thinking", Text: "Two tools.", Signature: "sig1"},
				{Type: "redacted_thinking", Data: "opaque"},
				{Type: "thinking", Text: "", Signature: "sig-empty"},
				{Type: "reasoning", ID: "rs_1", Data: "openai-encrypted"},
				{Type: "thinking", Text: "unsigned, from another vendor"},
			},
			Content: []llm.Part{llm.TextPart(""), llm.TextPart("Let me check.")},
			ToolCalls: []llm.ToolCall{
				{ID: "toolu_1", Name: "get_weather", Arguments: `{"location":"Paris"}`},
				{ID: "toolu_2", Name: "current_time", Arguments: ""},
				{ID: "toolu_3", Name: "broken", Arguments: `{"a":`},
				{ID: "toolu_4", Name: "listy", Arguments: `[1,2]`},
			},
		},
		llm.ToolResultMessage("toolu_1", "get_weather", "18°C"),
		llm.ToolResultMessage("toolu_2", "current_time", "12:00"),
		llm.ToolResultMessage("toolu_3", "broken", ""),
		llm.ToolResultMessage("toolu_4", "listy", "ok"),
		llm.UserMessage("Thanks. And tomorrow?"),
		llm.AssistantMessage("Sunny."),
		{Role: llm.RoleUser, Content: []llm.Part{
			llm.ImagePart("data:image/png;base64,iVBORw0KGgo="),
			llm.ImagePart("https://example.com/cat.jpg"),
			{Type: llm.PartImage, ImageURL: "data:,hi%20there", MIMEType: "image/gif"},
			llm.TextPart(""),
			llm.TextPart("What are these?"),
		}},
		llm.UserMessage(""), // dropped: nothing to send
	}}
	x := send(t, llm.Endpoint{}, req)
	if x.path != "/v1/messages" {
		t.Errorf("path = %q, want /v1/messages", x.path)
	}
	for k, want := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"} {
		if got := x.header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if got := x.header.Get("Authorization"); got != "" {
		t.Errorf("Authorization header %q sent; Anthropic takes x-api-key", got)
	}
	w := x.wire(t)
	jsonEqual(t, "system", w["system"], `[{"type":"text","text":"You are hermes."},{"type":"text","text":"Be brief."}]`)
	jsonEqual(t, "messages", w["messages"], `[
	 {"role":"user","content":[{"type":"text","text":"What's the weather in Paris and the time?"}]},
	 {"role":"assistant","content":[
	   {"type":"thinking","thinking":"Two tools.","signature":"sig1"},
	   {"type":"redacted_thinking","data":"opaque"},
	   {"type":"thinking","thinking":"","signature":"sig-empty"},
	   {"type":"text","text":"Let me check."},
	   {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}},
	   {"type":"tool_use","id":"toolu_2","name":"current_time","input":{}},
	   {"type":"tool_use","id":"toolu_3","name":"broken","input":{}},
	   {"type":"tool_use","id":"toolu_4","name":"listy","input":{}}]},
	 {"role":"user","content":[
	   {"type":"tool_result","tool_use_id":"toolu_1","content":"18°C"},
	   {"type":"tool_result","tool_use_id":"toolu_2","content":"12:00"},
	   {"type":"tool_result","tool_use_id":"toolu_3"},
	   {"type":"tool_result","tool_use_id":"toolu_4","content":"ok"},
	   {"type":"text","text":"Thanks. And tomorrow?"}]},
	 {"role":"assistant","content":[{"type":"text","text":"Sunny."}]},
	 {"role":"user","content":[
	   {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
	   {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}},
	   {"type":"image","source":{"type":"base64","media_type":"image/gif","data":"aGkgdGhlcmU="}},
	   {"type":"text","text":"What are these?"}]}
	]`)
	if w["model"] != "claude-test" || w["max_tokens"] != float64(DefaultMaxTokens) || w["stream"] != true {
		t.Errorf("model, max_tokens, stream = %v, %v, %v", w["model"], w["max_tokens"], w["stream"])
	}
	for _, k := range []string{"tools", "tool_choice", "thinking", "temperature"} {
		if _, ok := w[k]; ok {
			t.Errorf("%s sent though the request set none", k)
		}
	}
}

func TestRequestToolResultWithImage(t *testing.T) {
	res := llm.ToolResultMessage("toolu_s", "screenshot", "the page")
	res.Content = append(res.Content, llm.ImagePart("data:image/jpeg;base64,/9j/4AAQ"))
	x := send(t, llm.Endpoint{}, &llm.Request{Messages: []llm.Message{
		llm.UserMessage("look"), llm.AssistantMessage("", llm.ToolCall{ID: "toolu_s", Name: "screenshot"}), res,
	}})
	jsonEqual(t, "messages[2]", x.wire(t)["messages"].([]any)[2], `{"role":"user","content":[
	  {"type":"tool_result","tool_use_id":"toolu_s","content":[
	    {"type":"text","text":"the page"},
	    {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}}]}]}`)
}

func TestRequestParameters(t *testing.T) {
	temp := 0.2
	weather := llm.ToolSpec{Name: "get_weather", Description: "Weather for a place.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}
	clock := llm.ToolSpec{Name: "current_time"}
	tests := []struct {
		name string
		ep   llm.Endpoint
		req  llm.Request
		want map[string]string // top-level key → JSON value; "" means absent
		path string
	}{
		{name: "tools and auto", req: llm.Request{Tools: []llm.ToolSpec{weather, clock}, ToolChoice: "auto"}, want: map[string]string{
			"tools": `[{"name":"get_weather","description":"Weather for a place.","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},
			           {"name":"current_time","input_schema":{"type":"object","properties":{}}}]`,
			"tool_choice": `{"type":"auto"}`,
		}},
		{name: "required is any", req: llm.Request{Tools: []llm.ToolSpec{weather}, ToolChoice: "required"}, want: map[string]string{"tool_choice": `{"type":"any"}`}},
		{name: "none", req: llm.Request{Tools: []llm.ToolSpec{weather}, ToolChoice: "none"}, want: map[string]string{"tool_choice": `{"type":"none"}`}},
		{name: "named tool", req: llm.Request{Tools: []llm.ToolSpec{weather}, ToolChoice: "get_weather"}, want: map[string]string{"tool_choice": `{"type":"tool","name":"get_weather"}`}},
		{name: "no choice", req: llm.Request{Tools: []llm.ToolSpec{weather}}, want: map[string]string{"tool_choice": ""}},
		{name: "temperature and max tokens", req: llm.Request{Temperature: &temp, MaxTokens: 1000}, want: map[string]string{
			"temperature": `0.2`, "max_tokens": `1000`, "thinking": "",
		}},
		{name: "thinking within default cap", req: llm.Request{ThinkingBudget: 2048, Temperature: &temp}, want: map[string]string{
			"thinking": `{"type":"enabled","budget_tokens":2048}`, "max_tokens": `8192`, "temperature": "",
		}},
		{name: "thinking above default cap", req: llm.Request{ThinkingBudget: 10000}, want: map[string]string{
			"thinking": `{"type":"enabled","budget_tokens":10000}`, "max_tokens": `18192`,
		}},
		{name: "thinking equal to explicit cap", req: llm.Request{ThinkingBudget: 4000, MaxTokens: 4000}, want: map[string]string{"max_tokens": `8000`}},
		{name: "no stream", req: llm.Request{NoStream: true}, want: map[string]string{"stream": ""}},
		{name: "model override", req: llm.Request{Model: "claude-opus-4-1"}, want: map[string]string{"model": `"claude-opus-4-1"`}},
		{name: "extra merged last", req: llm.Request{Extra: map[string]any{"metadata": map[string]string{"user_id": "u1"}, "max_tokens": 100}},
			want: map[string]string{"metadata": `{"user_id":"u1"}`, "max_tokens": `100`}},
		{name: "base URL ending in /v1", ep: llm.Endpoint{Name: "claude", BaseURL: "/v1/", APIKey: "k", Model: "m"}, path: "/v1/messages",
			want: map[string]string{"model": `"m"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Messages = []llm.Message{llm.UserMessage("hi")}
			if req.NoStream {
				// The tiny stream is not a Message; only the request matters.
				c, x := serve(t, 200, `{"type":"message","id":"msg_ok","content":[]}`)
				if _, _, err := collect(t, c, &req); err != nil {
					t.Fatal(err)
				}
				checkTopLevel(t, x.wire(t), tt.want)
				return
			}
			x := send(t, tt.ep, &req)
			if tt.path != "" && x.path != tt.path {
				t.Errorf("path = %q, want %q", x.path, tt.path)
			}
			checkTopLevel(t, x.wire(t), tt.want)
		})
	}
}

func checkTopLevel(t *testing.T, w map[string]any, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := w[k]
		if v == "" {
			if ok {
				t.Errorf("%s = %v, want it absent", k, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%s absent, want %s", k, v)
			continue
		}
		jsonEqual(t, k, got, v)
	}
}

func TestRequestNeedsModel(t *testing.T) {
	c := New(llm.Endpoint{Name: "claude", BaseURL: "http://127.0.0.1:1"})
	_, err := llm.Generate(t.Context(), c, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if llm.KindOf(err) != llm.ErrBadRequest {
		t.Fatalf("error = %v, want bad_request before any call", err)
	}
}
