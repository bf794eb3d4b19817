package llmtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestViolations(t *testing.T) {
	const (
		call1  = `{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}`
		call2  = `{"id":"c2","type":"function","function":{"name":"g","arguments":"{\"a\":1}"}}`
		user   = `{"role":"user","content":"hi"}`
		result = `{"role":"tool","tool_call_id":"c1","content":"ok"}`
	)
	chat := func(msgs ...string) string {
		return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	resp := func(items ...string) string {
		return `{"model":"m","instructions":"sys","input":[` + strings.Join(items, ",") + `]}`
	}
	anth := func(msgs ...string) string {
		return `{"model":"m","max_tokens":10,"system":"sys","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	const (
		rUser   = `{"role":"user","content":"hi"}`
		rCall1  = `{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`
		rOut1   = `{"type":"function_call_output","call_id":"c1","output":"ok"}`
		aUser   = `{"role":"user","content":"hi"}`
		aUse    = `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"g","input":{"x":1}}]}`
		aResult = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"A"}]}`
	)
	tests := []struct {
		name      string
		api       API
		body      string
		noVersion bool
		want      []string
	}{
		{"chat valid", ChatCompletions, chat(`{"role":"system","content":"s"}`, user,
			`{"role":"assistant","content":null,"tool_calls":[`+call1+`,`+call2+`]}`, result,
			`{"role":"tool","tool_call_id":"c2","content":"ok"}`, `{"role":"assistant","content":"done"}`, user), false, nil},
		{"chat two users", ChatCompletions, chat(user, user), false, []string{"messages[1]: two user messages in a row"}},
		{"chat two assistants", ChatCompletions, chat(user, `{"role":"assistant","content":"a"}`, `{"role":"assistant","content":"b"}`), false,
			[]string{"messages[2]: two assistant messages in a row"}},
		{"chat orphan result", ChatCompletions, chat(user, `{"role":"assistant","content":"a"}`, `{"role":"tool","tool_call_id":"c9","content":"x"}`), false,
			[]string{`messages[2]: tool result for "c9" answers no open call (no call with that id in the assistant message before it)`}},
		{"chat unanswered before user", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[`+call1+`,`+call2+`]}`, result, user), false,
			[]string{`messages[1]: tool call "c2" (g) is never answered`}},
		{"chat unanswered at end", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[`+call1+`]}`), false,
			[]string{`messages[1]: tool call "c1" (f) is never answered`}},
		{"chat id used twice", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[`+call1+`]}`, result, `{"role":"assistant","tool_calls":[`+call1+`]}`, result), false,
			[]string{`messages[3]: tool call id "c1" used twice (first at messages[1])`}},
		{"chat answered twice", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[`+call1+`]}`, result, result), false,
			[]string{`messages[3]: tool call "c1" answered twice`}},
		{"chat call without id", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}`, `{"role":"tool","tool_call_id":"","content":"x"}`), false,
			[]string{`messages[1]: tool call to "f" has no id`}},
		{"chat empty messages", ChatCompletions, `{"model":"m","messages":[]}`, false, []string{"messages list is empty"}},
		{"chat missing model", ChatCompletions, `{"messages":[` + user + `]}`, false, []string{"model is missing"}},
		{"chat stream_options without stream", ChatCompletions, `{"model":"m","stream_options":{"include_usage":true},"messages":[` + user + `]}`, false,
			[]string{"stream_options is only allowed when stream is true"}},
		{"chat unknown role", ChatCompletions, chat(user, `{"role":"function","name":"f","content":"x"}`), false, []string{`messages[1]: unknown role "function"`}},
		{"chat object arguments", ChatCompletions, chat(user, `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{}}}]}`, result), false,
			[]string{`messages[1]: tool call "c1": arguments must be a JSON string`}},
		{"chat empty assistant", ChatCompletions, chat(user, `{"role":"assistant","content":null}`, user), false,
			[]string{"messages[1]: assistant message has neither content nor tool_calls"}},

		{"responses valid", Responses, resp(rUser, `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}]}`,
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"let me see"}]}`, rCall1,
			`{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"}`, rOut1,
			`{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"ok"}]}`,
			`{"role":"assistant","content":"done"}`, rUser), false, nil},
		{"responses two users", Responses, resp(rUser, rUser), false, []string{"input[1]: two user messages in a row"}},
		{"responses unanswered", Responses, resp(rUser, rCall1, rUser), false, []string{`input[1]: tool call "c1" (f) is never answered`}},
		{"responses orphan output", Responses, resp(rUser, rOut1), false,
			[]string{`input[1]: tool result for "c1" answers no open call (no call with that id in the assistant message before it)`}},
		{"responses message after call", Responses, resp(rUser, rCall1, `{"role":"assistant","content":"x"}`), false,
			[]string{`input[1]: tool call "c1" (f) is never answered`, "input[2]: two assistant messages in a row"}},
		{"responses empty input", Responses, `{"model":"m","input":[]}`, false, []string{"input list is empty"}},
		{"responses unknown item", Responses, resp(rUser, `{"type":"function_result","call_id":"c1"}`), false, []string{`input[1]: unknown input item type "function_result"`}},
		{"responses stateful continuation", Responses, `{"model":"m","previous_response_id":"resp_1","input":[` + rOut1 + `]}`, false, nil},

		{"anthropic valid", AnthropicMessages, anth(aUser,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"calling"},{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"g","input":{"x":1}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"A"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"B"}]},{"type":"text","text":"thanks"}]}`,
			`{"role":"assistant","content":"done"}`, aUser), false, nil},
		{"anthropic two users", AnthropicMessages, anth(aUser, aUser), false, []string{"messages[1]: two user messages in a row"}},
		{"anthropic result then separate user", AnthropicMessages, anth(aUser, `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}`, aResult, aUser), false,
			[]string{"messages[3]: two user messages in a row"}},
		{"anthropic unanswered", AnthropicMessages, anth(aUser, aUse, aResult), false, []string{`messages[1]: tool call "b" (g) is never answered`}},
		{"anthropic orphan", AnthropicMessages, anth(aUser, `{"role":"assistant","content":"x"}`, aResult), false,
			[]string{`messages[2]: tool result for "a" answers no open call (no call with that id in the assistant message before it)`}},
		{"anthropic text before results", AnthropicMessages, anth(aUser, `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}`,
			`{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"a","content":"A"}]}`), false,
			[]string{`messages[1]: tool call "a" (f) is never answered`, `messages[2]: tool result for "a" answers no open call (no call with that id in the assistant message before it)`}},
		{"anthropic missing max_tokens and version", AnthropicMessages, `{"model":"m","messages":[` + aUser + `]}`, true,
			[]string{"anthropic-version header is missing", "max_tokens is missing"}},
		{"anthropic system role", AnthropicMessages, anth(`{"role":"system","content":"s"}`, aUser), false, []string{`messages[0]: unknown role "system" (want user or assistant)`}},
		{"anthropic empty content", AnthropicMessages, anth(aUser, `{"role":"assistant","content":[]}`, `{"role":"user","content":[{"type":"text","text":""}]}`), false,
			[]string{"messages[1]: content is empty", "messages[2]: text content blocks must be non-empty"}},
		{"anthropic empty messages", AnthropicMessages, `{"model":"m","max_tokens":5,"messages":[]}`, false, []string{"messages list is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t)
			srv.AllowViolations()
			srv.Handle(func(Request) Reply { return Reply{Text: "ok"} })
			req, _ := http.NewRequest(http.MethodPost, srv.URL()+endpoint[tt.api], strings.NewReader(tt.body))
			if !tt.noVersion {
				req.Header.Set("anthropic-version", "2023-06-01")
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d: a decodable request is answered even when it breaks the rules", resp.StatusCode)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, "request 0 ("+string(tt.api)+"): "+w)
			}
			if got := srv.Violations(); !slices.Equal(got, want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestMalformedRequests(t *testing.T) {
	tests := []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/v1/chat/completions", `{"model":`, 400, "request 0 (chat_completions): body is not valid JSON"},
		{"POST", "/v1/messages", `[1,2]`, 400, "request 0 (anthropic_messages): body is not a JSON object"},
		{"POST", "/v1/responses", `{"model":"m","stream":"yes","input":"q"}`, 400, "request 0 (responses): body does not match the responses request schema"},
		{"GET", "/v1/chat/completions", "", 405, "GET /v1/chat/completions: method not allowed (want POST)"},
		{"POST", "/v1/completions", `{}`, 404, "POST /v1/completions: unknown path"},
		{"POST", "/chat/completions", `{}`, 404, "POST /chat/completions: unknown path"},
		{"POST", "/v1/models", `{}`, 405, "POST /v1/models: method not allowed (want GET)"},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			srv := New(t)
			srv.AllowViolations()
			srv.Enqueue(Reply{Text: "never served"})
			req, _ := http.NewRequest(tt.method, srv.URL()+tt.path, strings.NewReader(tt.body))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			v := decodeJSON(t, resp)
			if resp.StatusCode != tt.status || str(v, "error", "message") == "" {
				t.Errorf("status %d body %v, want %d with an error envelope", resp.StatusCode, v, tt.status)
			}
			if got := srv.Violations(); len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("violations = %q, want one starting %q", got, tt.want)
			}
			if srv.Pending() != 1 {
				t.Error("a malformed request consumed a scripted reply")
			}
		})
	}
}
