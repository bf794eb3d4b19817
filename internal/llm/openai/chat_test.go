package openai

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// chatWant is what a replayed recording must produce. A call with an empty
// ID expects an id invented by the adapter (the vendor sent none).
type chatWant struct {
	text, reasoning string
	calls           []llm.ToolCall
	finish          llm.FinishReason
	raw             string
	usage           llm.Usage
	id, model       string
	// errKind is set when the stream must end with an *llm.Error of that
	// kind; errText must then be part of its message.
	errKind  llm.ErrorKind
	errText  string
	inStream bool
}

// chatServe starts a server that answers POST /v1/chat/completions with the
// recording in testdata/chat/file: SSE for .sse files, JSON otherwise.
func chatServe(t *testing.T, file string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "chat", file))
	if err != nil {
		t.Fatal(err)
	}
	ct := "application/json"
	if strings.HasSuffix(file, ".sse") {
		ct = "text/event-stream; charset=utf-8"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// chatReplay runs one request against the recording and returns every
// event the adapter yielded.
func chatReplay(t *testing.T, file string, noStream bool) []llm.Event {
	t.Helper()
	srv := chatServe(t, file)
	c := NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, NoStream: noStream}
	var events []llm.Event
	for ev := range c.Stream(t.Context(), req) {
		events = append(events, ev)
	}
	return events
}

// chatCheck asserts the events of one replay against want: the final
// response, the error, and that the deltas add up to the final response.
func chatCheck(t *testing.T, events []llm.Event, want chatWant) *llm.Response {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	last := events[len(events)-1]
	for _, ev := range events[:len(events)-1] {
		if ev.Kind == llm.EventDone || ev.Kind == llm.EventError {
			t.Fatalf("terminal event %v before the end", ev.Kind)
		}
	}
	if want.errKind == "" {
		if last.Kind != llm.EventDone {
			t.Fatalf("last event = %v (err %v), want done", last.Kind, last.Err)
		}
	} else {
		if last.Kind != llm.EventError {
			t.Fatalf("last event = %v, want error %s", last.Kind, want.errKind)
		}
		e, ok := llm.AsError(last.Err)
		if !ok {
			t.Fatalf("error %v (%T) is not an *llm.Error", last.Err, last.Err)
		}
		if e.Kind != want.errKind || e.InStream != want.inStream || !strings.Contains(e.Message, want.errText) {
			t.Errorf("error = kind %s inStream %v message %q, want kind %s inStream %v message containing %q",
				e.Kind, e.InStream, e.Message, want.errKind, want.inStream, want.errText)
		}
		if e.Provider != "test" {
			t.Errorf("error provider = %q, want test", e.Provider)
		}
	}
	resp := last.Response
	if resp == nil {
		t.Fatal("no response on the final event")
	}
	if got := resp.Text(); got != want.text {
		t.Errorf("text = %q, want %q", got, want.text)
	}
	if resp.Message.Reasoning != want.reasoning {
		t.Errorf("reasoning = %q, want %q", resp.Message.Reasoning, want.reasoning)
	}
	if resp.Message.Role != llm.RoleAssistant {
		t.Errorf("role = %q, want assistant", resp.Message.Role)
	}
	chatCheckCalls(t, resp.Message.ToolCalls, want.calls)
	if resp.FinishReason != want.finish || resp.RawFinishReason != want.raw {
		t.Errorf("finish = %q (raw %q), want %q (raw %q)", resp.FinishReason, resp.RawFinishReason, want.finish, want.raw)
	}
	if resp.Usage != want.usage {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want.usage)
	}
	if resp.ID != want.id || resp.Model != want.model || resp.Provider != "test" {
		t.Errorf("id/model/provider = %q/%q/%q, want %q/%q/test", resp.ID, resp.Model, resp.Provider, want.id, want.model)
	}
	llmtest.CheckDeltas(t, events, resp)
	return resp
}

func chatCheckCalls(t *testing.T, got, want []llm.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tool calls %+v, want %d %+v", len(got), got, len(want), want)
	}
	seen := map[string]bool{}
	for i, w := range want {
		g := got[i]
		if w.ID == "" {
			if !strings.HasPrefix(g.ID, "call_") || seen[g.ID] {
				t.Errorf("call %d: id %q, want a distinct invented call_… id", i, g.ID)
			}
		} else if g.ID != w.ID {
			t.Errorf("call %d: id = %q, want %q", i, g.ID, w.ID)
		}
		seen[g.ID] = true
		if g.Name != w.Name || !llmtest.SameJSON(g.Arguments, w.Arguments) {
			t.Errorf("call %d: %s(%s), want %s(%s)", i, g.Name, g.Arguments, w.Name, w.Arguments)
		}
	}
}
