package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/api"
)

func postTo(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// /v1/responses: input is the turn, the response's id continues its
// session through previous_response_id, and what hermes cannot take is
// refused naming the field.
func TestResponses(t *testing.T) {
	var got []api.Turn
	srv := newServer(t, api.Options{Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		got = append(got, tr)
		return echo(ctx, tr, sink)
	}})
	resp := postTo(t, srv.URL+"/v1/responses", `{"model":"hermes","input":"remember 42"}`)
	var r struct {
		ID, Object, Status string
		Output             []struct {
			Type    string
			Content []struct{ Type, Text string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if r.ID != "resp_s-new" || r.Object != "response" || r.Status != "completed" || r.Output[0].Type != "message" || r.Output[0].Content[0].Type != "output_text" || r.Output[0].Content[0].Text != "you said: remember 42" {
		t.Errorf("response = %+v", r)
	}
	postTo(t, srv.URL+"/v1/responses", `{"input":[{"role":"user","content":[{"type":"input_text","text":"which?"}]}],"previous_response_id":"resp_s-new"}`)
	if len(got) != 2 || got[1].SessionID != "s-new" || got[1].Text != "which?" {
		t.Errorf("turns = %+v", got)
	}
	for _, tt := range []struct{ body, param, want string }{
		{`{"input":"x","stream":true}`, "stream", "stream: true is not accepted"},
		{`{"input":"x","previous_response_id":"chatcmpl-1"}`, "previous_response_id", `"chatcmpl-1" is not accepted`},
		{`{"input":[]}`, "input", "non-empty list"},
		{`{"input":[{"type":"function_call_output","call_id":"1","output":"approved"}]}`, "input[0].type", `"function_call_output" is not accepted`},
		{`{"input":[{"role":"system","content":"x"}]}`, "input[0].role", "the last message is the user's turn"},
		{`{"input":[{"role":"user","content":[{"type":"input_audio"}]}]}`, "input[0].content[0].type", `"input_audio" is not accepted`},
		{`{"input":"x","model":"nope"}`, "model", `"nope" is not accepted`},
	} {
		resp := postTo(t, srv.URL+"/v1/responses", tt.body)
		if resp.StatusCode/100 != 4 {
			t.Errorf("%s: status %d", tt.body, resp.StatusCode)
			continue
		}
		msg, param := apiErr(t, resp)
		if param != tt.param || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: param %q, message %q; want %q and %q", tt.body, param, msg, tt.param, tt.want)
		}
	}
}
