package anthropic

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// exchange is what the test server saw of the last request.
type exchange struct {
	mu     sync.Mutex
	path   string
	query  string
	header http.Header
	body   []byte
}

func (x *exchange) record(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.path, x.query, x.header, x.body = r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body
}

// wire decodes the request body the server received.
func (x *exchange) wire(t *testing.T) map[string]any {
	t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(x.body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, x.body)
	}
	return m
}

// serve starts a server that answers every request with status and body,
// as an event stream when the body looks like one.
func serve(t *testing.T, status int, body string) (*Client, *exchange) {
	t.Helper()
	x := &exchange{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.record(r)
		ct := "application/json"
		if strings.HasPrefix(body, "event:") || strings.HasPrefix(body, "data:") {
			ct = "text/event-stream; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, APIKey: "sk-ant-test", Model: "claude-test"}), x
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// collect drains a stream, checking that it ends with exactly one final
// event, and returns the events, the final response and error.
func collect(t *testing.T, c *Client, req *llm.Request) ([]llm.Event, *llm.Response, error) {
	t.Helper()
	var events []llm.Event
	for ev := range c.Stream(t.Context(), req) {
		events = append(events, ev)
	}
	if len(events) == 0 {
		t.Fatal("stream yielded no events")
	}
	for i, ev := range events[:len(events)-1] {
		if ev.Kind == llm.EventDone || ev.Kind == llm.EventError {
			t.Fatalf("event %d of %d is final (%v)", i, len(events), ev.Kind)
		}
	}
	last := events[len(events)-1]
	switch last.Kind {
	case llm.EventDone:
		return events, last.Response, nil
	case llm.EventError:
		return events, last.Response, last.Err
	}
	t.Fatalf("last event is %v, want done or error", last.Kind)
	return nil, nil, nil
}

// checkEventsMatch asserts that the deltas a caller saw add up to the
// final response and, since Anthropic streams every call's id, name and
// input, that each call's fragments carry its id and its whole arguments.
func checkEventsMatch(t *testing.T, events []llm.Event, resp *llm.Response) {
	t.Helper()
	if resp == nil {
		return
	}
	llmtest.CheckDeltas(t, events, resp)
	ids, args := map[int]string{}, map[int]string{}
	for _, ev := range events {
		if ev.Kind == llm.EventToolCall {
			if ev.ToolCall.ID != "" {
				ids[ev.ToolCall.Index] = ev.ToolCall.ID
			}
			args[ev.ToolCall.Index] += ev.ToolCall.Arguments
		}
	}
	for i, call := range resp.Message.ToolCalls {
		a := args[i]
		if a == "" {
			a = "{}"
		}
		if ids[i] != call.ID || a != call.Arguments {
			t.Errorf("call %d fragments carry id %q arguments %q, response %+v", i, ids[i], a, call)
		}
	}
}

// jsonEqual reports whether got (decoded JSON) equals the JSON text want.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON for %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s =\n%s\nwant\n%s", what, g, want)
	}
}
