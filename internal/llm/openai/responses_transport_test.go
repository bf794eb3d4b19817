package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// TestResponsesStreamAbort checks that a caller who stops listening, by
// breaking out of the loop or by cancelling the context, aborts the HTTP
// request at once: the server, which would otherwise hold the stream open
// forever, sees its request context end.
func TestResponsesStreamAbort(t *testing.T) {
	for _, mode := range []string{"break", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			gone := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_c\",\"model\":\"m\",\"status\":\"in_progress\"}}\n\n")
				fmt.Fprint(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_c\",\"output_index\":0,\"delta\":\"Hi\"}\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				close(gone)
			}))
			defer srv.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p := NewResponses(llm.Endpoint{Name: "test", BaseURL: srv.URL, Model: "m"})
			var last llm.Event
			for ev := range p.Stream(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}) {
				last = ev
				if ev.Kind == llm.EventText {
					if mode == "break" {
						break
					}
					cancel()
				}
			}
			select {
			case <-gone:
			case <-time.After(10 * time.Second):
				t.Fatal("the server is still streaming: the request was not aborted")
			}
			if mode == "break" {
				if last.Kind != llm.EventText {
					t.Errorf("last event seen = %v, want the text event the loop broke on", last.Kind)
				}
				return
			}
			if last.Kind != llm.EventError || !errors.Is(last.Err, context.Canceled) {
				t.Fatalf("last event = %v %v, want an error for the cancelled context", last.Kind, last.Err)
			}
			if last.Response == nil || last.Response.Text() != "Hi" || last.Response.ID != "resp_c" {
				t.Errorf("partial response = %+v, want id resp_c and text Hi", last.Response)
			}
		})
	}
}

// responsesMemTransport answers every request with the same streamed body
// from memory, so a benchmark measures the adapter and not the network.
type responsesMemTransport struct{ body []byte }

// RoundTrip discards the request and returns the body.
func (m responsesMemTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

// responsesBenchBody builds a realistic streamed reply of at least 1 MB:
// a reasoning summary, a long answer in small text deltas (with the
// obfuscation padding OpenAI adds), a function call in argument deltas, and
// the final response object repeating the whole output.
func responsesBenchBody() []byte {
	var b bytes.Buffer
	seq := 0
	emit := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		data, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	head := map[string]any{"id": "resp_bench", "object": "response", "status": "in_progress", "model": "gpt-5-2025-08-07", "output": []any{}}
	emit(map[string]any{"type": "response.created", "response": head})
	emit(map[string]any{"type": "response.in_progress", "response": head})
	var summary, text, args strings.Builder
	emit(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": "rs_bench", "type": "reasoning", "summary": []any{}}})
	for i := range 1500 {
		d := fmt.Sprintf(" thought %d,", i)
		summary.WriteString(d)
		emit(map[string]any{"type": "response.reasoning_summary_text.delta", "item_id": "rs_bench", "output_index": 0, "summary_index": 0, "delta": d, "obfuscation": "x7Qa2"})
	}
	reasoning := map[string]any{"id": "rs_bench", "type": "reasoning", "encrypted_content": strings.Repeat("gAAAAB", 400), "summary": []any{map[string]any{"type": "summary_text", "text": summary.String()}}}
	emit(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": reasoning})
	emit(map[string]any{"type": "response.output_item.added", "output_index": 1, "item": map[string]any{"id": "msg_bench", "type": "message", "role": "assistant", "content": []any{}}})
	for i := range 4000 {
		d := fmt.Sprintf(" word%d", i)
		text.WriteString(d)
		emit(map[string]any{"type": "response.output_text.delta", "item_id": "msg_bench", "output_index": 1, "content_index": 0, "delta": d, "logprobs": []any{}, "obfuscation": "Pq81mZ"})
	}
	msg := map[string]any{"id": "msg_bench", "type": "message", "role": "assistant", "status": "completed", "content": []any{map[string]any{"type": "output_text", "annotations": []any{}, "text": text.String()}}}
	emit(map[string]any{"type": "response.output_item.done", "output_index": 1, "item": msg})
	emit(map[string]any{"type": "response.output_item.added", "output_index": 2, "item": map[string]any{"id": "fc_bench", "type": "function_call", "call_id": "call_bench", "name": "write_file", "arguments": ""}})
	args.WriteString(`{"path":"notes.txt","content":"`)
	for i := range 300 {
		fmt.Fprintf(&args, "line %d\\n", i)
	}
	args.WriteString(`"}`)
	a := args.String()
	for i := 0; i < len(a); i += 12 {
		emit(map[string]any{"type": "response.function_call_arguments.delta", "item_id": "fc_bench", "output_index": 2, "delta": a[i:min(i+12, len(a))]})
	}
	call := map[string]any{"id": "fc_bench", "type": "function_call", "call_id": "call_bench", "name": "write_file", "arguments": a, "status": "completed"}
	emit(map[string]any{"type": "response.function_call_arguments.done", "item_id": "fc_bench", "output_index": 2, "arguments": a})
	emit(map[string]any{"type": "response.output_item.done", "output_index": 2, "item": call})
	done := map[string]any{"id": "resp_bench", "object": "response", "status": "completed", "model": "gpt-5-2025-08-07",
		"output": []any{reasoning, msg, call},
		"usage":  map[string]any{"input_tokens": 5000, "output_tokens": 9000, "total_tokens": 14000, "output_tokens_details": map[string]any{"reasoning_tokens": 3000}}}
	emit(map[string]any{"type": "response.completed", "response": done})
	return b.Bytes()
}

// BenchmarkResponsesStream measures the whole adapter, SSE reading and
// JSON decoding included, on a realistic reply of more than 1 MB.
func BenchmarkResponsesStream(b *testing.B) {
	body := responsesBenchBody()
	if len(body) < 1<<20 {
		b.Fatalf("benchmark body is %d bytes, want at least 1 MB", len(body))
	}
	p := NewResponses(llm.Endpoint{Name: "bench", BaseURL: "http://bench.invalid/v1", Model: "gpt-5",
		Client: &http.Client{Transport: responsesMemTransport{body: body}}})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := llm.Generate(b.Context(), p, req)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Message.ToolCalls) != 1 || resp.Usage.TotalTokens != 14000 {
			b.Fatalf("unexpected response: %d calls, usage %+v", len(resp.Message.ToolCalls), resp.Usage)
		}
	}
}

// FuzzResponsesStream feeds arbitrary bodies through the streaming parser:
// whatever arrives, the adapter must not panic and must end the stream
// with exactly one final event. The recordings are the seed corpus.
func FuzzResponsesStream(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "responses", "*.sse"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"content\":\"x\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p := NewResponses(llm.Endpoint{Name: "fuzz", BaseURL: "http://fuzz.invalid", Model: "m",
			Client: &http.Client{Transport: responsesMemTransport{body: body}}})
		finals := 0
		for ev := range p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("x")}}) {
			if finals > 0 {
				t.Fatalf("event %v after the final event", ev.Kind)
			}
			if ev.Kind == llm.EventDone || ev.Kind == llm.EventError {
				finals++
				if ev.Response == nil && ev.Kind == llm.EventDone {
					t.Fatal("EventDone without a response")
				}
			}
		}
		if finals != 1 {
			t.Fatalf("%d final events, want 1", finals)
		}
	})
}
