package openai

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

// chatMemoryTransport answers every request with the same SSE body from
// memory, so a benchmark measures the adapter and not the network.
type chatMemoryTransport struct{ body []byte }

func (m chatMemoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

// chatBenchBody builds a realistic streamed reply of at least size bytes:
// an OpenAI-style role chunk, many small text chunks, a tool call whose
// arguments arrive in pieces, the finish chunk, a usage chunk and [DONE].
func chatBenchBody(size int) (body []byte, text string, args string) {
	var b bytes.Buffer
	var tb, ab strings.Builder
	head := `{"id":"chatcmpl-Bench0123456789","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_560af6e559","choices":[{"index":0,"delta":`
	tail := `,"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qf3xT"}`
	chunk := func(delta any) {
		d, _ := json.Marshal(delta)
		b.WriteString("data: " + head)
		b.Write(d)
		b.WriteString(tail + "\n\n")
	}
	chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil})
	words := []string{" The", " agent", " reads", " the", " file", ",", " then", " calls", " a", " tool", ".", "\n", " café", " 数据"}
	for i := 0; b.Len() < size; i++ {
		w := words[i%len(words)]
		tb.WriteString(w)
		chunk(map[string]any{"content": w})
	}
	chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_bench", "type": "function",
		"function": map[string]any{"name": "write_file", "arguments": ""}}}})
	ab.WriteString(`{"path":"notes.md","content":"`)
	chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": ab.String()}}}})
	for i := range 200 {
		piece := fmt.Sprintf("line %d\\n", i)
		ab.WriteString(piece)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": piece}}}})
	}
	ab.WriteString(`"}`)
	chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `"}`}}}})
	b.WriteString(`data: {"id":"chatcmpl-Bench0123456789","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-Bench0123456789","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":5120,"completion_tokens":90000,"total_tokens":95120,"prompt_tokens_details":{"cached_tokens":4096}}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes(), tb.String(), ab.String()
}

func BenchmarkChatStream(b *testing.B) {
	body, text, args := chatBenchBody(1 << 20)
	c := NewChat(llm.Endpoint{Name: "bench", BaseURL: "https://api.openai.com/v1", APIKey: "k", Model: "gpt-4o-mini",
		Client: &http.Client{Transport: chatMemoryTransport{body: body}}})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("write the notes")}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := llm.Generate(b.Context(), c, req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.Text() != text || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Arguments != args {
			b.Fatalf("wrong reply: %d bytes of text, calls %+v", len(resp.Text()), resp.Message.ToolCalls)
		}
	}
}

// BenchmarkChatBody150Rounds encodes the request of the 150th round of a
// turn (two messages of about 1 KB added per round): afresh, as every
// round used to, and from the turn's WireCache, which encodes only the
// two new messages.
func BenchmarkChatBody150Rounds(b *testing.B) {
	c := NewChat(llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	tools := []llm.ToolSpec{{Name: "read_file", Description: strings.Repeat("Read a file. ", 40),
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	msgs := []llm.Message{llm.SystemMessage(strings.Repeat("You are hermes. ", 500)), llm.UserMessage("Run the steps.")}
	for i := range 150 {
		id := fmt.Sprint("call_", i)
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Step.")},
			ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"note.txt"}`}}},
			llm.ToolResultMessage(id, "read_file", strings.Repeat("The quick brown fox jumps over the lazy dog, \"twice\".\n", 20)))
	}
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprint("cached=", cached), func(b *testing.B) {
			var cache *llm.WireCache
			if cached {
				cache = new(llm.WireCache)
				if _, err := c.body(&llm.Request{Messages: msgs[:len(msgs)-2], Tools: tools, Cache: cache}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				// Each iteration is the next round: the cache has every
				// message but the last two.
				if cached {
					if _, err := cache.Messages("chat", msgs[:len(msgs)-2], func(m llm.Message) ([]byte, error) { return json.Marshal(chatWire(m)) }); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := c.body(&llm.Request{Messages: msgs, Tools: tools, Cache: cache}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
