package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
)

// sseEvent is one event of a Responses stream.
type sseEvent struct {
	name string
	data map[string]any
}

// readEvents reads a Responses stream, checking each event's name is its
// type and its sequence_number counts from 0; comments are returned as
// events named ":".
func readEvents(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
	}
	var out []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ": "):
			out = append(out, sseEvent{name: ":", data: map[string]any{"comment": line[2:]}})
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(line[len("data: "):]), &d); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
			seq := 0
			for _, e := range out {
				if e.name != ":" {
					seq++
				}
			}
			if d["type"] != name || d["sequence_number"] != float64(seq) {
				t.Errorf("event %q: type %v, sequence_number %v, want %d", name, d["type"], d["sequence_number"], seq)
			}
			out = append(out, sseEvent{name: name, data: d})
		}
	}
	return out
}

// A streamed response sends OpenAI's events in OpenAI's order: the
// response created and in progress, then for each stretch of text (one
// before the tool call, the answer after it) a message item with its
// text part, the deltas and their ends, and last the completed response
// with usage, whose output and id GET finds again; tool progress goes as
// a comment.
func TestResponsesStream(t *testing.T) {
	_, url := responsesServer(t)
	first := decodeResponse(t, postTo(t, url, `{"input":"one"}`)).ID
	events := readEvents(t, postTo(t, url, `{"input":"use a tool","stream":true,"previous_response_id":"`+first+`"}`))
	var names []string
	for _, e := range events {
		names = append(names, e.name)
	}
	item := "response.output_item.added response.content_part.added %s response.output_text.done response.content_part.done response.output_item.done"
	want := "response.created response.in_progress " + fmt.Sprintf(item, "response.output_text.delta") + " : " +
		fmt.Sprintf(item, "response.output_text.delta response.output_text.delta") + " response.completed"
	if strings.Join(names, " ") != want {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(names, " "), want)
	}
	created := events[0].data["response"].(map[string]any)
	if created["id"] != "resp_s-1_r2" || created["object"] != "response" || created["status"] != "in_progress" || created["previous_response_id"] != first || created["model"] != "hermes" {
		t.Errorf("response.created = %v", created)
	}
	if !strings.Contains(events[8].data["comment"].(string), `"name":"terminal"`) {
		t.Errorf("tool comment = %v", events[8].data)
	}
	var items []any
	for index, span := range [][2]int{{2, 8}, {9, 16}} {
		added := events[span[0]].data
		it := added["item"].(map[string]any)
		itemID := it["id"].(string)
		if it["type"] != "message" || it["role"] != "assistant" || it["status"] != "in_progress" || !strings.HasPrefix(itemID, "msg_") || added["output_index"] != float64(index) {
			t.Errorf("output_item.added = %v", added)
		}
		var deltas string
		for _, e := range events[span[0]+1 : span[1]-1] {
			if e.data["item_id"] != itemID || e.data["output_index"] != float64(index) || e.data["content_index"] != 0.0 {
				t.Errorf("%s is not at item %d's text part: %v", e.name, index, e.data)
			}
			if e.name == "response.output_text.delta" {
				deltas += e.data["delta"].(string)
			}
		}
		want := []string{"let me check.", "you said: use a tool"}[index]
		textDone, partDone := events[span[1]-3].data, events[span[1]-2].data
		if deltas != want || textDone["text"] != want || partDone["part"].(map[string]any)["text"] != want {
			t.Errorf("item %d: deltas %q, done %v, part %v", index, deltas, textDone, partDone)
		}
		done := events[span[1]-1].data
		it = done["item"].(map[string]any)
		if done["output_index"] != float64(index) || it["id"] != itemID || it["status"] != "completed" || it["content"].([]any)[0].(map[string]any)["text"] != want {
			t.Errorf("output_item.done = %v", done)
		}
		items = append(items, it)
	}
	completed := events[len(events)-1].data["response"].(map[string]any)
	usage, _ := completed["usage"].(map[string]any)
	if completed["id"] != created["id"] || completed["status"] != "completed" || usage == nil || usage["total_tokens"] != 14.0 || fmt.Sprint(completed["output"]) != fmt.Sprint(items) {
		t.Errorf("response.completed = %v", completed)
	}
	if r := decodeResponse(t, do(t, "GET", url+"/resp_s-1_r2")); r.text() != "let me check.you said: use a tool" || len(r.Output) != 2 {
		t.Errorf("GET the streamed response = %+v", r)
	}
	if r := decodeResponse(t, postTo(t, url, `{"input":"a tool again","previous_response_id":"resp_s-1_r2"}`)); r.text() != "let me check.you said: a tool again" || len(r.Output) != 2 {
		t.Errorf("the same turn whole = %+v", r)
	}
}

// A turn that fails after the stream began ends with response.failed
// saying why; one refused before it began gets an HTTP error.
func TestResponsesStreamFails(t *testing.T) {
	c := newConvs()
	srv := newServer(t, api.Options{Conversations: c, Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		c.api["s-1"] = &api.Conversation{ID: "s-1"}
		if err := tr.Ready(ctx, "s-1"); err != nil {
			return nil, err
		}
		sink.Event(agent.Event{Kind: agent.EventText, Text: "partial"})
		return &api.Result{SessionID: "s-1", Result: &agent.Result{Stopped: agent.StopError, Err: errors.New("the provider is down")}}, nil
	}})
	events := readEvents(t, postTo(t, srv.URL+"/v1/responses", `{"input":"x","stream":true}`))
	last := events[len(events)-1]
	r := last.data["response"].(map[string]any)
	e, _ := r["error"].(map[string]any)
	if last.name != "response.failed" || r["status"] != "failed" || e == nil || !strings.Contains(e["message"].(string), "the provider is down") {
		t.Errorf("last event %s: %v", last.name, last.data)
	}

	_, url := responsesServer(t)
	resp := postTo(t, url, `{"input":"x","stream":true,"previous_response_id":"resp_tg-1"}`)
	if _, param := apiErr(t, resp); resp.StatusCode != http.StatusNotFound || param != "previous_response_id" {
		t.Errorf("a refused stream: status %d, param %q", resp.StatusCode, param)
	}
}

// A client that goes away in the middle of a streamed response cancels
// its turn.
func TestResponsesStreamDisconnect(t *testing.T) {
	c := newConvs()
	entered, cancelled := make(chan struct{}), make(chan error, 1)
	srv := newServer(t, api.Options{Conversations: c, Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		c.api["s-1"] = &api.Conversation{ID: "s-1"}
		if err := tr.Ready(ctx, "s-1"); err != nil {
			return nil, err
		}
		sink.Event(agent.Event{Kind: agent.EventText, Text: "thinking"})
		close(entered)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/responses", strings.NewReader(`{"input":"x","stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-entered
	cancel()
	if err := <-cancelled; err == nil {
		t.Errorf("the turn's context did not end")
	}
}

// An answer cut at the model's output limit ends the stream with
// response.incomplete, and GET finds it incomplete too.
func TestResponsesIncomplete(t *testing.T) {
	_, url := responsesServer(t)
	events := readEvents(t, postTo(t, url, `{"input":"a long one","stream":true}`))
	last := events[len(events)-1]
	r := last.data["response"].(map[string]any)
	details, _ := r["incomplete_details"].(map[string]any)
	if last.name != "response.incomplete" || r["status"] != "incomplete" || details["reason"] != "max_output_tokens" {
		t.Errorf("last event %s: %v", last.name, r)
	}
	if got := decodeResponse(t, do(t, "GET", url+"/resp_s-1_r0")); got.Status != "incomplete" || got.text() != "you said: a long one" {
		t.Errorf("GET = %+v", got)
	}
}

// A model call that failed midway and was tried again leaves no trace of
// its text in a whole response.
func TestResponsesRetryVoidsText(t *testing.T) {
	c := newConvs()
	srv := newServer(t, api.Options{Conversations: c, Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		c.api["s-1"] = &api.Conversation{ID: "s-1"}
		if err := tr.Ready(ctx, "s-1"); err != nil {
			return nil, err
		}
		for _, e := range []agent.Event{{Kind: agent.EventText, Text: "Half an ans"}, {Kind: agent.EventRetry}, {Kind: agent.EventText, Text: "The answer."}} {
			sink.Event(e)
		}
		return &api.Result{SessionID: "s-1", Result: &agent.Result{Final: "The answer.", Stopped: agent.StopDone}}, nil
	}})
	if r := decodeResponse(t, postTo(t, srv.URL+"/v1/responses", `{"input":"x"}`)); r.text() != "The answer." {
		t.Errorf("output = %+v", r.Output)
	}
}
