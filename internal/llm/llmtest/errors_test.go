package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// bodies are minimal valid requests for each protocol.
var bodies = map[API][2]string{ // non-stream, stream
	ChatCompletions:   {`{"model":"m","messages":[{"role":"user","content":"q"}]}`, `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`},
	Responses:         {`{"model":"m","input":"q"}`, `{"model":"m","stream":true,"input":"q"}`},
	AnthropicMessages: {`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"}]}`, `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"q"}]}`},
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		api        API
		stream     bool
		rep        Reply
		status     int
		typ, code  string
		kind       llm.ErrorKind
		retryAfter string
		retryMS    string
	}{
		{ChatCompletions, false, Reply{Status: 429, Error: &ErrorReply{Message: "slow down", RetryAfter: 1500 * time.Millisecond}}, 429, "requests", "rate_limit_exceeded", llm.ErrRateLimited, "2", "1500"},
		{ChatCompletions, true, Reply{Status: 400, Error: &ErrorReply{Type: "invalid_request_error", Code: "context_length_exceeded", Message: "too long"}}, 400, "invalid_request_error", "context_length_exceeded", llm.ErrContextOverflow, "", ""},
		{ChatCompletions, false, Reply{Error: &ErrorReply{Message: "boom"}}, 500, "server_error", "", llm.ErrServer, "", ""},
		{Responses, true, Reply{Status: 401}, 401, "invalid_request_error", "invalid_api_key", llm.ErrAuth, "", ""},
		{Responses, false, Reply{Status: 429, Error: &ErrorReply{Type: "insufficient_quota", Code: "insufficient_quota"}}, 429, "insufficient_quota", "insufficient_quota", llm.ErrRateLimited, "", ""},
		{AnthropicMessages, false, Reply{Status: 529}, 529, "overloaded_error", "", llm.ErrOverloaded, "", ""},
		{AnthropicMessages, true, Reply{Status: 429, Error: &ErrorReply{RetryAfter: 3 * time.Second}}, 429, "rate_limit_error", "", llm.ErrRateLimited, "3", ""},
		{AnthropicMessages, false, Reply{Status: 400, Error: &ErrorReply{Message: "prompt is too long: 9 tokens > 5 maximum"}}, 400, "invalid_request_error", "", llm.ErrContextOverflow, "", ""},
		// InStream on a request that did not ask for a stream is an HTTP error.
		{AnthropicMessages, false, Reply{Error: &ErrorReply{InStream: true, Type: "api_error"}}, 500, "api_error", "", llm.ErrServer, "", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.api), func(t *testing.T) {
			srv := New(t)
			srv.Enqueue(tt.rep)
			body := bodies[tt.api][0]
			if tt.stream {
				body = bodies[tt.api][1]
			}
			resp := send(t, srv, tt.api, body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Retry-After"); got != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.retryAfter)
			}
			if got := resp.Header.Get("retry-after-ms"); got != tt.retryMS {
				t.Errorf("retry-after-ms = %q, want %q", got, tt.retryMS)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("error body is not JSON: %s", raw)
			}
			if str(v, "error", "type") != tt.typ || str(v, "error", "message") == "" {
				t.Errorf("error = %v, want type %q and a message", get(v, "error"), tt.typ)
			}
			if tt.api == AnthropicMessages {
				if str(v, "type") != "error" || str(v, "request_id") != resp.Header.Get("request-id") || str(v, "request_id") == "" {
					t.Errorf("envelope = %s, want type error and the request id", raw)
				}
			} else {
				if !has(v, "param", "error") || !has(v, "code", "error") || str(v, "error", "code") != tt.code {
					t.Errorf("error = %s, want param and code %q", raw, tt.code)
				}
			}
			// hermes's own error parser must read the envelope as meant.
			e := llm.ParseError("t", resp.StatusCode, resp.Header, raw)
			if e.Kind != tt.kind {
				t.Errorf("llm.ParseError kind = %s, want %s (%v)", e.Kind, tt.kind, e)
			}
		})
	}
}

func TestInStreamErrors(t *testing.T) {
	for _, api := range []API{ChatCompletions, Responses, AnthropicMessages} {
		t.Run(string(api), func(t *testing.T) {
			srv := New(t)
			srv.Enqueue(Reply{Text: "partial", Error: &ErrorReply{InStream: true, Type: "overloaded_error", Code: "overloaded", Message: "Overloaded"}})
			resp := send(t, srv, api, bodies[api][1])
			if resp.StatusCode != 200 {
				t.Fatalf("status %d, want 200", resp.StatusCode)
			}
			evs := readEvents(t, resp)
			var text string
			for _, e := range evs {
				text += str(e.Data, "choices", 0, "delta", "content") + str(e.Data, "delta") + str(e.Data, "delta", "text")
			}
			if text != "partial" {
				t.Errorf("text before the error = %q", text)
			}
			last := evs[len(evs)-1]
			payload, raw := last.Data, last.Raw
			switch api {
			case ChatCompletions, AnthropicMessages:
				if last.Name != "error" {
					t.Fatalf("last event = %q, want error", last.Name)
				}
			case Responses:
				errEv := evs[len(evs)-2]
				if errEv.Name != "error" || last.Name != "response.failed" {
					t.Fatalf("last events = %q, %q, want error, response.failed", errEv.Name, last.Name)
				}
				if str(last.Data, "response", "status") != "failed" || str(last.Data, "response", "error", "code") != "overloaded" {
					t.Errorf("response.failed = %v", last.Data)
				}
				if str(errEv.Data, "code") != "overloaded" || str(errEv.Data, "message") != "Overloaded" {
					t.Errorf("error event = %v, want code and message at the top level as documented", errEv.Data)
				}
				payload, raw = errEv.Data, errEv.Raw
			}
			for _, e := range evs {
				if e.Raw == "[DONE]" || e.Name == "message_stop" || e.Name == "response.completed" {
					t.Errorf("stream ended normally (%q) after an in-stream error", e.Name+e.Raw)
				}
			}
			if str(payload, "error", "message") != "Overloaded" || str(payload, "error", "type") != "overloaded_error" {
				t.Errorf("error payload = %v", payload)
			}
			if e := llm.ParseError("t", 0, nil, []byte(raw)); e.Kind != llm.ErrOverloaded || e.Message != "Overloaded" {
				t.Errorf("llm.ParseError kind = %s, want overloaded", e.Kind)
			}
		})
	}
}

func TestFinishReasonMapping(t *testing.T) {
	tests := []struct {
		finish     llm.FinishReason
		calls      bool
		chat       string
		status     string
		incomplete string
		anthropic  string
	}{
		{"", false, "stop", "completed", "", "end_turn"},
		{"", true, "tool_calls", "completed", "", "tool_use"},
		{llm.FinishStop, false, "stop", "completed", "", "end_turn"},
		{llm.FinishLength, false, "length", "incomplete", "max_output_tokens", "max_tokens"},
		{llm.FinishToolCalls, true, "tool_calls", "completed", "", "tool_use"},
		{llm.FinishContentFilter, false, "content_filter", "incomplete", "content_filter", "refusal"},
		{"pause_turn", false, "pause_turn", "pause_turn", "", "pause_turn"},
	}
	for _, tt := range tests {
		t.Run(string(tt.finish), func(t *testing.T) {
			srv := New(t)
			rep := Reply{Text: "x", FinishReason: tt.finish}
			if tt.calls {
				rep.ToolCalls = []llm.ToolCall{{Name: "f"}}
			}
			srv.Handle(func(Request) Reply { return rep })
			chat := decodeJSON(t, send(t, srv, ChatCompletions, bodies[ChatCompletions][0]))
			resp := decodeJSON(t, send(t, srv, Responses, bodies[Responses][0]))
			anth := decodeJSON(t, send(t, srv, AnthropicMessages, bodies[AnthropicMessages][0]))
			got := [4]string{str(chat, "choices", 0, "finish_reason"), str(resp, "status"), str(resp, "incomplete_details", "reason"), str(anth, "stop_reason")}
			if want := [4]string{tt.chat, tt.status, tt.incomplete, tt.anthropic}; got != want {
				t.Errorf("chat, responses status, incomplete reason, anthropic = %q, want %q", got, want)
			}
		})
	}
}

// TestUnknownPathEnvelope checks that a request to an unknown path from an
// Anthropic client gets a 404 in Anthropic's envelope.
func TestUnknownPathEnvelope(t *testing.T) {
	srv := New(t)
	srv.AllowViolations()
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/complete", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	v := decodeJSON(t, resp)
	if resp.StatusCode != 404 || str(v, "type") != "error" || str(v, "error", "type") != "not_found_error" {
		t.Errorf("status %d body %v, want a 404 Anthropic envelope", resp.StatusCode, v)
	}
}
