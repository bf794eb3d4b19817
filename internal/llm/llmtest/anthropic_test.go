package llmtest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

const anthropicHello = `{"model":"claude-test","max_tokens":100,"messages":[{"role":"user","content":"hello"}]}`

func TestAnthropicJSON(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{
		Text: "Checking.", Reasoning: "I should look it up",
		ToolCalls: []llm.ToolCall{{Name: "lookup", Arguments: `{"q":"x","n":2}`}, {Name: "now"}},
		Usage:     &llm.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 30, CacheWriteTokens: 20},
	})
	resp := send(t, srv, AnthropicMessages, anthropicHello)
	if resp.Header.Get("request-id") == "" {
		t.Error("no request-id header")
	}
	v := decodeJSON(t, resp)
	if str(v, "type") != "message" || str(v, "role") != "assistant" || str(v, "model") != "claude-test" || !strings.HasPrefix(str(v, "id"), "msg_") {
		t.Errorf("envelope = type %q role %q model %q id %q", str(v, "type"), str(v, "role"), str(v, "model"), str(v, "id"))
	}
	if str(v, "stop_reason") != "tool_use" || !has(v, "stop_sequence") {
		t.Errorf("stop_reason = %q", str(v, "stop_reason"))
	}
	var types []string
	for _, b := range get(v, "content").([]any) {
		types = append(types, str(b, "type"))
	}
	if want := []string{"thinking", "text", "tool_use", "tool_use"}; !slices.Equal(types, want) {
		t.Fatalf("content block types = %v, want %v", types, want)
	}
	if str(v, "content", 0, "thinking") != "I should look it up" || str(v, "content", 0, "signature") == "" {
		t.Errorf("thinking block = %v, want text and a signature", get(v, "content", 0))
	}
	input, _ := json.Marshal(get(v, "content", 2, "input"))
	if !strings.HasPrefix(str(v, "content", 2, "id"), "toolu_") || str(v, "content", 2, "name") != "lookup" || string(input) != `{"n":2,"q":"x"}` {
		t.Errorf("tool_use = %v, want a toolu_ id and input as an object", get(v, "content", 2))
	}
	if m, ok := get(v, "content", 3, "input").(map[string]any); !ok || len(m) != 0 {
		t.Errorf("tool_use without arguments has input %v, want {}", get(v, "content", 3, "input"))
	}
	// hermes's InputTokens counts cached tokens; Anthropic's input_tokens does not.
	u := get(v, "usage")
	if num(u, "input_tokens") != 50 || num(u, "cache_read_input_tokens") != 30 || num(u, "cache_creation_input_tokens") != 20 || num(u, "output_tokens") != 10 {
		t.Errorf("usage = %v", u)
	}
}

func TestAnthropicStream(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{
		Text: "Here you go: done.", Reasoning: "plan the call", ChunkSize: 4,
		ToolCalls: []llm.ToolCall{{ID: "toolu_a", Name: "search", Arguments: `{"query":"go generics"}`}, {ID: "toolu_b", Name: "clock", Arguments: "{}"}},
		Usage:     &llm.Usage{InputTokens: 40, OutputTokens: 25},
	})
	evs := readEvents(t, send(t, srv, AnthropicMessages,
		`{"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"go"}]}`))
	var (
		names      []string
		blocks     []string // type of each block, by index
		text       = map[int]*strings.Builder{}
		signatures int
		stops      int
	)
	for i, e := range evs {
		if e.Name != str(e.Data, "type") {
			t.Errorf("event %d: name %q but data type %q", i, e.Name, str(e.Data, "type"))
		}
		if e.Name != "content_block_delta" {
			names = append(names, e.Name)
		}
		idx := num(e.Data, "index")
		switch e.Name {
		case "content_block_start":
			if idx != len(blocks) {
				t.Errorf("block started with index %d, want %d", idx, len(blocks))
			}
			blocks = append(blocks, str(e.Data, "content_block", "type"))
			text[idx] = &strings.Builder{}
		case "content_block_delta":
			d := get(e.Data, "delta")
			switch str(d, "type") {
			case "thinking_delta":
				text[idx].WriteString(str(d, "thinking"))
			case "signature_delta":
				signatures++
			case "text_delta":
				text[idx].WriteString(str(d, "text"))
			case "input_json_delta":
				if !has(d, "partial_json") {
					t.Errorf("input_json_delta without partial_json")
				}
				text[idx].WriteString(str(d, "partial_json"))
			default:
				t.Errorf("unknown delta type %q", str(d, "type"))
			}
		case "content_block_stop":
			stops++
		}
	}
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_stop", "content_block_start", "content_block_stop",
		"content_block_start", "content_block_stop", "content_block_start", "content_block_stop",
		"message_delta", "message_stop"}
	if !slices.Equal(names, want) {
		t.Errorf("events (without deltas) = %v\nwant %v", names, want)
	}
	if !slices.Equal(blocks, []string{"thinking", "text", "tool_use", "tool_use"}) || signatures != 1 {
		t.Fatalf("blocks %v, %d signature deltas", blocks, signatures)
	}
	got := []string{text[0].String(), text[1].String(), text[2].String(), text[3].String()}
	if !slices.Equal(got, []string{"plan the call", "Here you go: done.", `{"query":"go generics"}`, ""}) {
		t.Errorf("block contents = %q", got)
	}
	start := evs[0].Data
	if str(start, "message", "id") == "" || get(start, "message", "stop_reason") != nil || num(start, "message", "usage", "input_tokens") != 40 {
		t.Errorf("message_start = %v", start)
	}
	delta := evs[len(evs)-2].Data
	if str(delta, "delta", "stop_reason") != "tool_use" || num(delta, "usage", "output_tokens") != 25 {
		t.Errorf("message_delta = %v", delta)
	}
}
