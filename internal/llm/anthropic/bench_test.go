package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// memoryTransport answers every request with the same body from memory, so
// that a benchmark measures the adapter and not the network.
type memoryTransport struct {
	contentType string
	body        []byte
}

func (m memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {m.contentType}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    req,
	}, nil
}

// realisticStream builds a Messages stream of at least size bytes shaped
// like a long agent reply: a thinking block, a long text answer streamed
// in small deltas (with the escapes and non-ASCII text real replies have),
// and two tool calls whose arguments arrive in pieces.
func realisticStream(size int) (body []byte, text string) {
	var b bytes.Buffer
	event := func(name string, v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data)
	}
	// Deltas are written in Anthropic's key order (type, index, delta),
	// which encoding a map would not keep.
	delta := func(i int, typ, field, value string) {
		v, _ := json.Marshal(value)
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":%q,%q:%s}}\n\n", i, typ, field, v)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01BenchStream", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 18000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 42000, "output_tokens": 1},
	}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
	for range 200 {
		delta(0, "thinking_delta", "thinking", "The user wants the config parsed; check the \"timeout\" key first. ")
	}
	delta(0, "signature_delta", "signature", strings.Repeat("EqQBCgIYAhIM", 30))
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "text", "text": ""}})
	pieces := []string{"Here is", " the plan:\n\n", "1. Read `config.yaml`", " and validate", " every key — ", "including ", "\"retries\"", " (défaut: 3).\n", "2. Run the", " migration", " script.\n"}
	var sb strings.Builder
	for i := 0; b.Len() < size-4096; i++ {
		p := pieces[i%len(pieces)]
		sb.WriteString(p)
		delta(1, "text_delta", "text", p)
		if i%50 == 0 {
			b.WriteString("event: ping\ndata: {\"type\": \"ping\"}\n\n")
		}
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1})
	for call := range 2 {
		i := 2 + call
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_bench_%d", call), "name": "run_script", "input": map[string]any{}}})
		for _, p := range []string{"", `{"path": "scr`, `ipts/migrate.sh", "args": ["--dry`, `-run"], "timeout": 60}`} {
			delta(i, "input_json_delta", "partial_json", p)
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 250000}})
	event("message_stop", map[string]any{"type": "message_stop"})
	return b.Bytes(), sb.String()
}

func BenchmarkMessagesStream(b *testing.B) {
	body, text := realisticStream(1 << 20)
	c := New(llm.Endpoint{Name: "bench", BaseURL: "http://bench.invalid", Model: "m",
		Client: &http.Client{Transport: memoryTransport{"text/event-stream", body}}})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("plan the migration")}}
	resp, err := llm.Generate(b.Context(), c, req)
	if err != nil || resp.Text() != text || len(resp.Message.ToolCalls) != 2 {
		b.Fatalf("benchmark stream does not parse: err %v, %d calls", err, len(resp.Message.ToolCalls))
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for ev := range c.Stream(b.Context(), req) {
			if ev.Kind == llm.EventError {
				b.Fatal(ev.Err)
			}
			n++
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}
