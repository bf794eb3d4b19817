package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// responsesServer is an httptest server that answers POST /v1/responses
// with a fixed body and keeps every request it receives.
type responsesServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
}

// responsesNewServer starts a server that answers with body as contentType.
func responsesNewServer(t *testing.T, contentType string, body []byte) *responsesServer {
	t.Helper()
	s := &responsesServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, got)
		s.mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// lastBody returns the JSON body of the last request, decoded.
func (s *responsesServer) lastBody(t *testing.T) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	var m map[string]any
	if err := json.Unmarshal(s.bodies[len(s.bodies)-1], &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, s.bodies[len(s.bodies)-1])
	}
	return m
}

// provider returns a Responses provider pointed at the server.
func (s *responsesServer) provider() *Responses {
	return NewResponses(llm.Endpoint{Name: "test", BaseURL: s.URL + "/v1", APIKey: "test-key", Model: "gpt-test"})
}

// responsesCollect drains a stream, checking that it ends with exactly one final
// event, and returns all events.
func responsesCollect(t *testing.T, p llm.Provider, req *llm.Request) []llm.Event {
	t.Helper()
	var evs []llm.Event
	for ev := range p.Stream(t.Context(), req) {
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		t.Fatal("stream yielded no events")
	}
	for i, ev := range evs {
		final := ev.Kind == llm.EventDone || ev.Kind == llm.EventError
		if final != (i == len(evs)-1) {
			t.Fatalf("event %d of %d is %v: want exactly one final event, last", i, len(evs), ev.Kind)
		}
	}
	return evs
}

// responsesCheckDeltas checks that the deltas a caller rendered add up to
// the response, and that the Responses adapter, which learns every call's
// id before its arguments, announces each call with its id.
func responsesCheckDeltas(t *testing.T, evs []llm.Event, resp *llm.Response) {
	t.Helper()
	llmtest.CheckDeltas(t, evs, resp)
	ids := map[int]string{}
	for _, ev := range evs {
		if ev.Kind == llm.EventToolCall && ev.ToolCall.ID != "" {
			ids[ev.ToolCall.Index] = ev.ToolCall.ID
		}
	}
	if len(ids) != len(resp.Message.ToolCalls) {
		t.Errorf("tool-call fragments name %d calls, response has %d", len(ids), len(resp.Message.ToolCalls))
	}
}
