package llmtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/sse"
)

// recorder is a testing.TB that keeps cleanups and errors for inspection,
// so that what New reports at the end of a test can itself be tested.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// servedSignal makes srv report each answered request on the returned
// channel.
func servedSignal(srv *Server) <-chan struct{} {
	ch := make(chan struct{}, 16)
	srv.mu.Lock()
	srv.served = func() { ch <- struct{}{} }
	srv.mu.Unlock()
	return ch
}

// awaitServed fails the test unless the handler returns within a bound
// generous enough for a loaded machine.
func awaitServed(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return after the client went away")
	}
}

func TestQueueOrderAcrossProtocols(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "first"}, Reply{Text: "second"})
	srv.Enqueue(Reply{Text: "third"})
	if srv.Pending() != 3 {
		t.Fatalf("Pending = %d, want 3", srv.Pending())
	}
	got := []string{
		str(decodeJSON(t, send(t, srv, AnthropicMessages, bodies[AnthropicMessages][0])), "content", 0, "text"),
		str(decodeJSON(t, send(t, srv, ChatCompletions, bodies[ChatCompletions][0])), "choices", 0, "message", "content"),
		str(decodeJSON(t, send(t, srv, Responses, bodies[Responses][0])), "output", 0, "content", 0, "text"),
	}
	if fmt.Sprint(got) != "[first second third]" || srv.Pending() != 0 {
		t.Errorf("replies = %q, pending %d", got, srv.Pending())
	}
}

func TestHandleEchoAfterQueue(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "scripted"})
	srv.Handle(Echo)
	a := str(decodeJSON(t, send(t, srv, ChatCompletions, bodies[ChatCompletions][0])), "choices", 0, "message", "content")
	b := str(decodeJSON(t, send(t, srv, ChatCompletions, `{"model":"m","messages":[{"role":"user","content":"echo me"}]}`)), "choices", 0, "message", "content")
	if a != "scripted" || b != "echo me" {
		t.Errorf("replies = %q, %q; want the queue first, then the handler", a, b)
	}
}

func TestUnexpectedRequestFailsTheTest(t *testing.T) {
	for _, allow := range []bool{false, true} {
		rec := &recorder{TB: t}
		srv := New(rec)
		if allow {
			srv.AllowViolations()
		}
		resp := send(t, srv, AnthropicMessages, bodies[AnthropicMessages][0])
		v := decodeJSON(t, resp)
		if resp.StatusCode != 500 || str(v, "error", "type") != "api_error" {
			t.Errorf("status %d body %v, want a 500 Anthropic error", resp.StatusCode, v)
		}
		want := "request 0 (anthropic_messages): unexpected request: no reply enqueued and no handler set"
		if got := srv.Violations(); len(got) != 1 || got[0] != want {
			t.Errorf("violations = %q", got)
		}
		rec.finish()
		switch {
		case !allow && (len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "1 protocol violation(s)") || !strings.Contains(rec.errors[0], want)):
			t.Errorf("cleanup reported %q, want the violation", rec.errors)
		case allow && len(rec.errors) != 0:
			t.Errorf("cleanup reported %q although violations were allowed", rec.errors)
		}
	}
}

func TestDelay(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "late", Delay: 30 * time.Millisecond})
	start := time.Now()
	resp := send(t, srv, ChatCompletions, bodies[ChatCompletions][0])
	resp.Body.Close()
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("reply came after %v, want at least the 30ms delay", d)
	}

	// A client that gives up ends the wait at once.
	arrived := make(chan struct{})
	srv.Handle(func(Request) Reply { close(arrived); return Reply{Delay: time.Hour} })
	served := servedSignal(srv)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/v1/responses", strings.NewReader(bodies[Responses][0]))
	if _, err := srv.Client().Do(req); err == nil {
		t.Fatal("request succeeded despite an hour's delay")
	}
	awaitServed(t, served)
}

func TestStallAfter(t *testing.T) {
	tests := []struct {
		name   string
		api    API
		stream bool
		stall  int
		events int // events readable before the stall
	}{
		{"chat after 3 events", ChatCompletions, true, 3, 3},
		{"anthropic after 1 event", AnthropicMessages, true, 1, 1},
		{"responses before any event", Responses, true, -1, 0},
		{"non-streamed body", ChatCompletions, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t)
			srv.Enqueue(Reply{Text: strings.Repeat("word ", 20), ChunkSize: 2, StallAfter: tt.stall})
			served := servedSignal(srv)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			resp := sendCtx(t, ctx, srv, tt.api, bodies[tt.api][btoi(tt.stream)])
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: the headers of a stalled reply are sent", resp.StatusCode)
			}
			r := sse.NewReader(resp.Body)
			for i := range tt.events {
				if _, err := r.Next(); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			cancel()
			if ev, err := r.Next(); err == nil {
				t.Errorf("read %q after the stall point", ev.Data)
			}
			resp.Body.Close()
			awaitServed(t, served)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCloseReleasesStalledRequests(t *testing.T) {
	srv := NewServer()
	srv.Enqueue(Reply{Text: "x", StallAfter: 1})
	resp := send(t, srv, ChatCompletions, bodies[ChatCompletions][1])
	defer resp.Body.Close()
	done := make(chan struct{})
	go func() { srv.Close(); srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a stalled stream")
	}
}

func TestRawAndHeaders(t *testing.T) {
	srv := New(t)
	raw := "data: {\"quirk\":true}\n\n: comment\n\ndata: [DONE]\n\n"
	srv.Enqueue(
		Reply{Raw: raw, ChunkSize: 3, Header: http.Header{"X-Test": {"yes"}}},
		Reply{Raw: `{"odd":1}`, RawContentType: "text/plain", Status: 203},
	)
	resp := send(t, srv, ChatCompletions, bodies[ChatCompletions][1])
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != raw || resp.Header.Get("X-Test") != "yes" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("raw stream = %q, X-Test %q, Content-Type %q", body, resp.Header.Get("X-Test"), resp.Header.Get("Content-Type"))
	}
	resp = send(t, srv, AnthropicMessages, bodies[AnthropicMessages][0])
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"odd":1}` || resp.StatusCode != 203 || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("raw body = %q status %d Content-Type %q", body, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestModels(t *testing.T) {
	srv := New(t)
	list := func(anthropic bool) map[string]any {
		req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/v1/models", nil)
		if anthropic {
			req.Header.Set("anthropic-version", "2023-06-01")
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return decodeJSON(t, resp)
	}
	v := list(false)
	if str(v, "object") != "list" || str(v, "data", 0, "id") != DefaultModel || str(v, "data", 0, "object") != "model" {
		t.Errorf("OpenAI list = %v", v)
	}
	srv.SetModels("claude-a", "claude-b")
	v = list(true)
	if str(v, "data", 1, "id") != "claude-b" || str(v, "data", 0, "type") != "model" || get(v, "has_more") != false || str(v, "last_id") != "claude-b" {
		t.Errorf("Anthropic list = %v", v)
	}
	if len(srv.Requests()) != 0 {
		t.Error("model listing recorded as a model request")
	}
}

func TestMadeUpCallIDsAreUnique(t *testing.T) {
	srv := New(t)
	srv.Handle(func(Request) Reply { return Reply{ToolCalls: []llm.ToolCall{{Name: "f"}, {Name: "g"}}} })
	seen := map[string]bool{}
	for range 3 {
		v := decodeJSON(t, send(t, srv, ChatCompletions, bodies[ChatCompletions][0]))
		for i := range 2 {
			id := str(v, "choices", 0, "message", "tool_calls", i, "id")
			if id == "" || seen[id] {
				t.Fatalf("call id %q empty or repeated", id)
			}
			seen[id] = true
		}
	}
}
