package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/llm"
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

func do(t *testing.T, method, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// response is the part of a response object the tests read.
type response struct {
	ID, Object, Status, Model string
	PreviousResponseID        *string `json:"previous_response_id"`
	CreatedAt                 int64   `json:"created_at"`
	Output                    []struct {
		ID, Type, Role, Status string
		Content                []struct{ Type, Text string }
	}
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
	}
}

// text joins the output's texts, as the openai SDK's output_text does.
func (r response) text() string {
	var b strings.Builder
	for _, o := range r.Output {
		if o.Type != "message" || o.Role != "assistant" || len(o.Content) != 1 || o.Content[0].Type != "output_text" {
			return "<not an assistant message of one output_text>"
		}
		b.WriteString(o.Content[0].Text)
	}
	return b.String()
}

func decodeResponse(t *testing.T, resp *http.Response) response {
	t.Helper()
	var r response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	return r
}

func responsesServer(t *testing.T) (*convs, string) {
	c := newConvs()
	srv := newServer(t, api.Options{Run: c.run, Conversations: c})
	return c, srv.URL + "/v1/responses"
}

// /v1/responses: input is the turn, the response's id continues its
// session through previous_response_id, and what hermes cannot take is
// refused naming the field.
func TestResponses(t *testing.T) {
	c, url := responsesServer(t)
	r := decodeResponse(t, postTo(t, url, `{"model":"hermes","input":"remember 42"}`))
	if r.ID != "resp_s-1_r0" || r.Object != "response" || r.Status != "completed" || r.text() != "you said: remember 42" || r.PreviousResponseID != nil || r.Usage == nil || r.Usage.TotalTokens != 14 {
		t.Errorf("response = %+v", r)
	}
	r2 := decodeResponse(t, postTo(t, url, `{"input":[{"role":"user","content":[{"type":"input_text","text":"which?"}]}],"previous_response_id":"resp_s-1_r0"}`))
	if len(c.turns) != 2 || c.turns[1].SessionID != "s-1" || c.turns[1].Text != "which?" {
		t.Errorf("turns = %+v", c.turns)
	}
	if r2.ID != "resp_s-1_r2" || r2.PreviousResponseID == nil || *r2.PreviousResponseID != r.ID {
		t.Errorf("second response = %+v", r2)
	}
	for _, tt := range []struct {
		body, param, want string
		status            int
	}{
		{`{"input":"x","previous_response_id":"chatcmpl-1"}`, "previous_response_id", `"chatcmpl-1" is not accepted`, 400},
		{`{"input":[]}`, "input", "non-empty list", 400},
		{`{"input":[{"type":"function_call_output","call_id":"1","output":"approved"}]}`, "input[0].type", `"function_call_output" is not accepted`, 400},
		{`{"input":[{"role":"system","content":"x"}]}`, "input[0].role", "the last message is the user's turn", 400},
		{`{"input":[{"role":"user","content":[{"type":"input_audio"}]}]}`, "input[0].content[0].type", `"input_audio" is not accepted`, 400},
		{`{"input":"x","model":"nope"}`, "model", `"nope" is not accepted`, 404},
	} {
		resp := postTo(t, url, tt.body)
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.body, resp.StatusCode, tt.status)
			continue
		}
		msg, param := apiErr(t, resp)
		if param != tt.param || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: param %q, message %q; want %q and %q", tt.body, param, msg, tt.param, tt.want)
		}
	}
}

// Each response of a conversation has an id of its own, and only the
// latest can be continued: a hermes conversation is one line of turns.
// The older id resp_<session> names the latest response.
func TestResponseIDs(t *testing.T) {
	c, url := responsesServer(t)
	ids := []string{decodeResponse(t, postTo(t, url, `{"input":"one"}`)).ID}
	for _, in := range []string{"two, with a tool", "three"} {
		r := decodeResponse(t, postTo(t, url, `{"input":"`+in+`","previous_response_id":"`+ids[len(ids)-1]+`"}`))
		ids = append(ids, r.ID)
	}
	// one: messages 1-2; two: 3-6; three: 7-8.
	if strings.Join(ids, " ") != "resp_s-1_r0 resp_s-1_r2 resp_s-1_r6" {
		t.Errorf("ids = %v", ids)
	}
	for i, id := range ids {
		r := decodeResponse(t, do(t, "GET", url+"/"+id))
		want := []string{"you said: one", "let me check.you said: two, with a tool", "you said: three"}[i]
		if r.ID != id || r.Object != "response" || r.Status != "completed" || r.Model != "test-model" || r.text() != want || r.CreatedAt != 1700000000 || r.Output[0].Role != "assistant" {
			t.Errorf("GET %s = %+v", id, r)
		}
		if (i == 0) != (r.PreviousResponseID == nil) || (i > 0 && *r.PreviousResponseID != ids[i-1]) {
			t.Errorf("GET %s: previous_response_id %v", id, r.PreviousResponseID)
		}
	}
	if r := decodeResponse(t, do(t, "GET", url+"/resp_s-1")); r.ID != ids[2] {
		t.Errorf("the older id resp_s-1 names %s, want the latest %s", r.ID, ids[2])
	}
	turns := len(c.turns)
	resp := postTo(t, url, `{"input":"fork","previous_response_id":"`+ids[1]+`"}`)
	if msg, param := apiErr(t, resp); resp.StatusCode != http.StatusConflict || param != "previous_response_id" || !strings.Contains(msg, "continue the latest, "+ids[2]) {
		t.Errorf("continuing an earlier response: status %d, param %q, %q", resp.StatusCode, param, msg)
	}
	if conv, _ := c.Conversation(context.Background(), "s-1"); len(conv.Messages) != 8 {
		t.Errorf("a refused turn stored messages: %d", len(conv.Messages))
	}
	r := decodeResponse(t, postTo(t, url, `{"input":"four","previous_response_id":"resp_s-1"}`))
	if r.ID != "resp_s-1_r8" || len(c.turns) != turns+2 {
		t.Errorf("continuing resp_s-1: %+v", r)
	}
}

// An id that names no response, a turn in the middle of a conversation,
// or a session the API did not make is answered 404 in OpenAI's shape,
// by GET, DELETE and previous_response_id alike; a chat platform's
// session is neither read, continued nor deleted.
func TestResponseUnknownIDs(t *testing.T) {
	c, url := responsesServer(t)
	decodeResponse(t, postTo(t, url, `{"input":"a tool please"}`))
	for _, id := range []string{"resp_s-9_r0", "resp_s-1_r3", "resp_s-1_r2", "resp_s-1_r99", "resp_tg-1_r0", "resp_tg-1", "chatcmpl-1", "resp_"} {
		for _, method := range []string{"GET", "DELETE"} {
			resp := do(t, method, url+"/"+id)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s: status %d", method, id, resp.StatusCode)
				continue
			}
			if msg, param := apiErr(t, resp); param != "id" || !strings.Contains(msg, "response") {
				t.Errorf("%s %s: param %q, %q", method, id, param, msg)
			}
		}
		resp := postTo(t, url, `{"input":"x","previous_response_id":"`+id+`"}`)
		if resp.StatusCode/100 != 4 {
			t.Errorf("previous_response_id %s: status %d", id, resp.StatusCode)
		} else if msg, param := apiErr(t, resp); param != "previous_response_id" || !strings.Contains(msg, id) || strings.Contains(msg, api.SessionHeader) {
			t.Errorf("previous_response_id %s: param %q, %q", id, param, msg)
		}
	}
	if len(c.api) != 1 || !c.other["tg-1"] {
		t.Errorf("conversations = %v", c.api)
	}
}

// DELETE deletes the conversation of the response, all its responses,
// and answers as OpenAI does; a conversation running a turn is kept.
func TestDeleteResponse(t *testing.T) {
	c, url := responsesServer(t)
	first := decodeResponse(t, postTo(t, url, `{"input":"one"}`)).ID
	second := decodeResponse(t, postTo(t, url, `{"input":"two","previous_response_id":"`+first+`"}`)).ID
	resp := do(t, "DELETE", url+"/"+second)
	var d struct {
		ID, Object string
		Deleted    bool
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != 200 || d.ID != second || d.Object != "response.deleted" || !d.Deleted {
		t.Fatalf("status %d, %+v, %v", resp.StatusCode, d, err)
	}
	for _, id := range []string{first, second} {
		if resp := do(t, "GET", url+"/"+id); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s after DELETE: status %d", id, resp.StatusCode)
		}
	}

	entered, leave := make(chan struct{}), make(chan struct{})
	srv := newServer(t, api.Options{Conversations: c, Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		if err := tr.Ready(ctx, "s-2"); err != nil {
			return nil, err
		}
		close(entered)
		<-leave
		return c.run(ctx, api.Turn{SessionID: "s-2", Text: tr.Text}, sink)
	}})
	c.api["s-2"] = &api.Conversation{ID: "s-2"}
	c.append("s-2", llm.UserMessage("hi"))
	c.append("s-2", llm.AssistantMessage("hello"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"input":"slow","previous_response_id":"resp_s-2"}`)); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	resp = do(t, "DELETE", srv.URL+"/v1/responses/resp_s-2_r0")
	close(leave)
	<-done
	if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "running a turn") {
		t.Errorf("DELETE during a turn: status %d, %q", resp.StatusCode, msg)
	}
	if _, ok := c.api["s-2"]; !ok {
		t.Errorf("the conversation was deleted under its turn")
	}
}

// A conversation compressed during a turn goes on in a child session:
// the response is named there, and the parent's responses, no longer the
// latest, are refused as points to continue from, naming the latest.
func TestResponseAfterCompression(t *testing.T) {
	for _, stream := range []bool{false, true} {
		c, url := responsesServer(t)
		first := decodeResponse(t, postTo(t, url, `{"input":"one"}`)).ID
		body := `{"input":"compress now","previous_response_id":"` + first + `"}`
		var id string
		if stream {
			events := readEvents(t, postTo(t, url, strings.Replace(body, "{", `{"stream":true,`, 1)))
			id = events[len(events)-1].data["response"].(map[string]any)["id"].(string)
		} else {
			id = decodeResponse(t, postTo(t, url, body)).ID
		}
		if id != "resp_s-1c_r0" {
			t.Errorf("stream %v: the compressed turn's response is %s", stream, id)
		}
		if r := decodeResponse(t, do(t, "GET", url+"/"+id)); r.text() != "you said: compress now" {
			t.Errorf("GET %s = %+v", id, r)
		}
		for _, prev := range []string{first, "resp_s-1"} {
			resp := postTo(t, url, `{"input":"x","previous_response_id":"`+prev+`"}`)
			if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "continue the latest, "+id) {
				t.Errorf("continuing %s: status %d, %q", prev, resp.StatusCode, msg)
			}
		}
		if r := decodeResponse(t, postTo(t, url, `{"input":"on","previous_response_id":"`+id+`"}`)); r.ID != "resp_s-1c_r5" || len(c.turns) != 5 {
			t.Errorf("continuing the child: %+v, %d turns", r, len(c.turns))
		}
	}
}
