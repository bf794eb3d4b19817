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

	"github.com/hermes-go/hermes/llm"
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
// final response: text, reasoning, tool calls and the last usage.
func checkEventsMatch(t *testing.T, events []llm.Event, resp *llm.Response) {
	t.Helper()
	if resp == nil {
		return
	}
	var text, reasoning strings.Builder
	type seen struct{ id, name, args string }
	calls := map[int]*seen{}
	var usage *llm.Usage
	for _, ev := range events {
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventReasoning:
			reasoning.WriteString(ev.Text)
		case llm.EventToolCall:
			s := calls[ev.ToolCall.Index]
			if s == nil {
				s = &seen{}
				calls[ev.ToolCall.Index] = s
			}
			if ev.ToolCall.ID != "" {
				s.id = ev.ToolCall.ID
			}
			if ev.ToolCall.Name != "" {
				s.name = ev.ToolCall.Name
			}
			s.args += ev.ToolCall.Arguments
		case llm.EventUsage:
			u := ev.Usage
			usage = &u
		}
	}
	if text.String() != resp.Text() {
		t.Errorf("text events add up to %q, response text is %q", text.String(), resp.Text())
	}
	if reasoning.String() != resp.Message.Reasoning {
		t.Errorf("reasoning events add up to %q, response reasoning is %q", reasoning.String(), resp.Message.Reasoning)
	}
	if len(calls) != len(resp.Message.ToolCalls) {
		t.Errorf("tool-call events for %d calls, response has %d", len(calls), len(resp.Message.ToolCalls))
	}
	for i, call := range resp.Message.ToolCalls {
		s := calls[i]
		if s == nil {
			t.Errorf("no tool-call event with index %d", i)
			continue
		}
		args := s.args
		if args == "" {
			args = "{}"
		}
		if s.id != call.ID || s.name != call.Name || args != call.Arguments {
			t.Errorf("call %d events %+v, response %+v", i, *s, call)
		}
	}
	if usage != nil && *usage != resp.Usage {
		t.Errorf("last usage event %+v, response usage %+v", *usage, resp.Usage)
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
