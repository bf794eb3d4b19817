package llmtest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// The same conversation in each protocol's wire form: a system prompt, a
// user turn with an image, an assistant turn with reasoning, text and a
// tool call, the tool result, the answer and a last user turn.
var conversation = map[API]string{
	ChatCompletions: `{"model":"m","stream":true,
	  "tools":[{"type":"function","function":{"name":"lookup","description":"Look up","parameters":{"type":"object"}}}],
	  "messages":[
	    {"role":"system","content":"Be brief."},
	    {"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"https://img.test/cat.png"}}]},
	    {"role":"assistant","content":"Let me look.","reasoning_content":"unsure",
	     "tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"cat\"}"}}]},
	    {"role":"tool","tool_call_id":"c1","content":"a cat"},
	    {"role":"assistant","content":"It is a cat."},
	    {"role":"developer","content":"Stay polite."},
	    {"role":"user","content":"thanks"}]}`,
	Responses: `{"model":"m","stream":true,"instructions":"Be brief.",
	  "tools":[{"type":"function","name":"lookup","description":"Look up","parameters":{"type":"object"}}],
	  "input":[
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"What is this?"},{"type":"input_image","image_url":"https://img.test/cat.png"}]},
	    {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"unsure"}],"encrypted_content":"enc"},
	    {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look."}]},
	    {"type":"function_call","id":"fc_1","call_id":"c1","name":"lookup","arguments":"{\"q\":\"cat\"}"},
	    {"type":"function_call_output","call_id":"c1","output":"a cat"},
	    {"role":"assistant","content":"It is a cat."},
	    {"role":"developer","content":"Stay polite."},
	    {"role":"user","content":"thanks"}]}`,
	AnthropicMessages: `{"model":"m","max_tokens":64,"stream":true,"system":[{"type":"text","text":"Be brief."}],
	  "tools":[{"name":"lookup","description":"Look up","input_schema":{"type":"object"}}],
	  "messages":[
	    {"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","source":{"type":"url","url":"https://img.test/cat.png"}}]},
	    {"role":"assistant","content":[{"type":"thinking","thinking":"unsure","signature":"sig"},{"type":"text","text":"Let me look."},
	      {"type":"tool_use","id":"c1","name":"lookup","input":{"q": "cat"}}]},
	    {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"a cat"}]}]},
	    {"role":"assistant","content":"It is a cat."},
	    {"role":"user","content":"thanks"}]}`,
}

func TestRequestDecoding(t *testing.T) {
	want := []llm.Message{
		llm.SystemMessage("Be brief."),
		{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("What is this?"), llm.ImagePart("https://img.test/cat.png")}},
		{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Let me look.")}, Reasoning: "unsure",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"q":"cat"}`}}},
		llm.ToolResultMessage("c1", "lookup", "a cat"),
		llm.AssistantMessage("It is a cat."),
		llm.SystemMessage("Stay polite."),
		llm.UserMessage("thanks"),
	}
	blocks := map[API][]llm.ReasoningBlock{
		Responses:         {{Type: "reasoning", ID: "rs_1", Text: "unsure", Data: "enc"}},
		AnthropicMessages: {{Type: "thinking", Text: "unsure", Signature: "sig"}},
	}
	for api, body := range conversation {
		t.Run(string(api), func(t *testing.T) {
			srv := New(t)
			srv.Enqueue(Reply{Text: "ok"})
			readEvents(t, send(t, srv, api, body))
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests recorded", len(reqs))
			}
			r := reqs[0]
			if r.Index != 0 || r.API != api || r.Path != endpoint[api] || !r.Stream || r.Model != "m" || string(r.Body) != body {
				t.Errorf("request = index %d api %s path %s stream %v model %q", r.Index, r.API, r.Path, r.Stream, r.Model)
			}
			if r.Header.Get("Authorization")+r.Header.Get("x-api-key") == "" {
				t.Error("request headers not recorded")
			}
			w := want
			if api == AnthropicMessages { // Anthropic has no system messages mid-conversation
				w = append(append([]llm.Message{}, want[:5]...), want[6])
			}
			w = slicesWithBlocks(w, blocks[api])
			if !reflect.DeepEqual(r.Messages, w) {
				got, _ := json.MarshalIndent(r.Messages, "", " ")
				exp, _ := json.MarshalIndent(w, "", " ")
				t.Errorf("messages =\n%s\nwant\n%s", got, exp)
			}
			if len(r.Tools) != 1 || r.Tools[0].Name != "lookup" || r.Tools[0].Description != "Look up" || string(r.Tools[0].Parameters) != `{"type":"object"}` {
				t.Errorf("tools = %+v", r.Tools)
			}
			if got := r.LastUserText(); got != "thanks" {
				t.Errorf("LastUserText = %q", got)
			}
		})
	}
}

// slicesWithBlocks returns msgs with the reasoning blocks set on the first
// assistant message, copying rather than changing the shared expectation.
func slicesWithBlocks(msgs []llm.Message, blocks []llm.ReasoningBlock) []llm.Message {
	out := append([]llm.Message(nil), msgs...)
	for i := range out {
		if out[i].Role == llm.RoleAssistant {
			out[i].ReasoningBlocks = blocks
			break
		}
	}
	return out
}

func TestRequestDecodingForms(t *testing.T) {
	tests := []struct {
		name string
		api  API
		body string
		want []llm.Message
	}{
		{"responses string input", Responses, `{"model":"m","input":"just text"}`, []llm.Message{llm.UserMessage("just text")}},
		{"chat empty arguments", ChatCompletions, `{"model":"m","messages":[{"role":"user","content":"q"},
			{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":""}}]},
			{"role":"tool","tool_call_id":"c","name":"f","content":[{"type":"text","text":"r"}]}]}`,
			[]llm.Message{llm.UserMessage("q"), llm.AssistantMessage("", llm.ToolCall{ID: "c", Name: "f", Arguments: "{}"}), llm.ToolResultMessage("c", "f", "r")}},
		{"anthropic base64 image and redacted thinking", AnthropicMessages, `{"model":"m","max_tokens":5,"messages":[
			{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},
			{"role":"assistant","content":[{"type":"redacted_thinking","data":"opaque"},{"type":"text","text":"hm"}]},
			{"role":"user","content":"go on"}]}`,
			[]llm.Message{
				{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartImage, ImageURL: "data:image/png;base64,AAAA", MIMEType: "image/png"}}},
				{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("hm")}, ReasoningBlocks: []llm.ReasoningBlock{{Type: "redacted_thinking", Data: "opaque"}}},
				llm.UserMessage("go on"),
			}},
		{"anthropic results then text in one turn", AnthropicMessages, `{"model":"m","max_tokens":5,"messages":[
			{"role":"user","content":"q"},
			{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"g","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"A"},{"type":"tool_result","tool_use_id":"b","content":"B"},{"type":"text","text":"and?"}]}]}`,
			[]llm.Message{llm.UserMessage("q"),
				llm.AssistantMessage("", llm.ToolCall{ID: "a", Name: "f", Arguments: "{}"}, llm.ToolCall{ID: "b", Name: "g", Arguments: "{}"}),
				llm.ToolResultMessage("a", "f", "A"), llm.ToolResultMessage("b", "g", "B"), llm.UserMessage("and?")}},
		{"responses parallel calls group into one turn", Responses, `{"model":"m","input":[{"role":"user","content":"q"},
			{"type":"function_call","call_id":"x","name":"f","arguments":"{}"},{"type":"function_call","call_id":"y","name":"g","arguments":"{}"},
			{"type":"function_call_output","call_id":"x","output":"1"},{"type":"function_call_output","call_id":"y","output":"2"}]}`,
			[]llm.Message{llm.UserMessage("q"),
				llm.AssistantMessage("", llm.ToolCall{ID: "x", Name: "f", Arguments: "{}"}, llm.ToolCall{ID: "y", Name: "g", Arguments: "{}"}),
				llm.ToolResultMessage("x", "f", "1"), llm.ToolResultMessage("y", "g", "2")}},
		{"responses reasoning items of one turn", Responses, `{"model":"m","input":[{"role":"user","content":"q"},
			{"type":"reasoning","id":"r1","summary":[{"type":"summary_text","text":"a"}]},{"type":"reasoning","id":"r2","summary":[]},
			{"role":"assistant","content":"x"}]}`,
			[]llm.Message{llm.UserMessage("q"), {Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("x")}, Reasoning: "a",
				ReasoningBlocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "r1", Text: "a"}, {Type: "reasoning", ID: "r2"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t)
			srv.Enqueue(Reply{Text: "ok"})
			send(t, srv, tt.api, tt.body).Body.Close()
			got := srv.Requests()[0].Messages
			if !reflect.DeepEqual(got, tt.want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(tt.want, "", " ")
				t.Errorf("messages =\n%s\nwant\n%s", g, w)
			}
		})
	}
}
