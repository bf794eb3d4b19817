package llmtest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

const chatHello = `{"model":"gpt-test","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello"}]}`

func TestChatJSONText(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "Hi there", Usage: &llm.Usage{InputTokens: 12, OutputTokens: 3, CacheReadTokens: 4, ReasoningTokens: 1}})
	resp := send(t, srv, ChatCompletions, chatHello)
	if resp.StatusCode != 200 || resp.Header.Get("x-request-id") == "" {
		t.Fatalf("status %d, x-request-id %q", resp.StatusCode, resp.Header.Get("x-request-id"))
	}
	v := decodeJSON(t, resp)
	checks := map[string][2]any{
		"object":        {str(v, "object"), "chat.completion"},
		"model":         {str(v, "model"), "gpt-test"},
		"role":          {str(v, "choices", 0, "message", "role"), "assistant"},
		"content":       {str(v, "choices", 0, "message", "content"), "Hi there"},
		"finish_reason": {str(v, "choices", 0, "finish_reason"), "stop"},
		"prompt":        {num(v, "usage", "prompt_tokens"), 12},
		"completion":    {num(v, "usage", "completion_tokens"), 3},
		"total":         {num(v, "usage", "total_tokens"), 15},
		"cached":        {num(v, "usage", "prompt_tokens_details", "cached_tokens"), 4},
		"reasoning":     {num(v, "usage", "completion_tokens_details", "reasoning_tokens"), 1},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if !strings.HasPrefix(str(v, "id"), "chatcmpl-") {
		t.Errorf("id = %q, want a chatcmpl- id", str(v, "id"))
	}
	if has(v, "tool_calls", "choices", 0, "message") {
		t.Error("a text reply carries tool_calls")
	}
}

func TestChatJSONToolCallsAndReasoning(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Reasoning: "need weather", ToolCalls: []llm.ToolCall{
		{Name: "weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_given", Name: "time", Arguments: `{}`},
	}})
	v := decodeJSON(t, send(t, srv, ChatCompletions, chatHello))
	msg := get(v, "choices", 0, "message")
	if !has(msg, "content") || get(msg, "content") != nil {
		t.Errorf("content = %v, want present and null for a tool-call-only reply", get(msg, "content"))
	}
	if got := str(msg, "reasoning_content"); got != "need weather" {
		t.Errorf("reasoning_content = %q", got)
	}
	if got := str(v, "choices", 0, "finish_reason"); got != "tool_calls" {
		t.Errorf("finish_reason = %q, want tool_calls", got)
	}
	id0 := str(msg, "tool_calls", 0, "id")
	if id0 == "" || !strings.HasPrefix(id0, "call_") {
		t.Errorf("made-up call id = %q, want call_...", id0)
	}
	want := [][3]string{{id0, "weather", `{"city":"Paris"}`}, {"call_given", "time", "{}"}}
	for i, w := range want {
		c := get(msg, "tool_calls", i)
		got := [3]string{str(c, "id"), str(c, "function", "name"), str(c, "function", "arguments")}
		if got != w || str(c, "type") != "function" {
			t.Errorf("tool_calls[%d] = %v type %q, want %v type function", i, got, str(c, "type"), w)
		}
	}
}

func TestChatStream(t *testing.T) {
	srv := New(t)
	text := "Héllo wörld, this is streamed"
	srv.Enqueue(Reply{
		Text: text, Reasoning: "thinking it over", ChunkSize: 5,
		ToolCalls: []llm.ToolCall{{Name: "a", Arguments: `{"x":1,"y":"two"}`}, {Name: "b", Arguments: `{}`}},
		Usage:     &llm.Usage{InputTokens: 7, OutputTokens: 9},
	})
	evs := readEvents(t, send(t, srv, ChatCompletions,
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`))
	if len(evs) < 4 || evs[len(evs)-1].Raw != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %d events", len(evs))
	}
	evs = evs[:len(evs)-1]
	if str(evs[0].Data, "choices", 0, "delta", "role") != "assistant" {
		t.Errorf("first chunk delta = %v, want the assistant role", get(evs[0].Data, "choices", 0, "delta"))
	}
	var (
		content, reasoning strings.Builder
		contentChunks      int
		args               = map[int]*strings.Builder{}
		ids, names         = map[int]string{}, map[int]string{}
		finish             []string
	)
	usageChunk := evs[len(evs)-1].Data
	for i, e := range evs[:len(evs)-1] {
		if e.Name != "" || str(e.Data, "object") != "chat.completion.chunk" {
			t.Fatalf("event %d: name %q object %q", i, e.Name, str(e.Data, "object"))
		}
		if !has(e.Data, "usage") || get(e.Data, "usage") != nil {
			t.Errorf("chunk %d: want \"usage\": null when include_usage was asked", i)
		}
		d := get(e.Data, "choices", 0, "delta")
		if s := str(d, "content"); s != "" {
			contentChunks++
			if utf8.RuneCountInString(s) > 5 {
				t.Errorf("content chunk %q longer than ChunkSize", s)
			}
			content.WriteString(s)
		}
		reasoning.WriteString(str(d, "reasoning_content"))
		if calls, ok := get(d, "tool_calls").([]any); ok {
			for _, c := range calls {
				idx := num(c, "index")
				if id := str(c, "id"); id != "" {
					if ids[idx] != "" {
						t.Errorf("call %d: id sent twice", idx)
					}
					ids[idx], names[idx] = id, str(c, "function", "name")
					args[idx] = &strings.Builder{}
				}
				args[idx].WriteString(str(c, "function", "arguments"))
			}
		}
		if f := str(e.Data, "choices", 0, "finish_reason"); f != "" {
			finish = append(finish, f)
		}
	}
	if content.String() != text || contentChunks < 2 {
		t.Errorf("content = %q in %d chunks, want %q in several", content.String(), contentChunks, text)
	}
	if reasoning.String() != "thinking it over" {
		t.Errorf("reasoning_content = %q", reasoning.String())
	}
	if names[0] != "a" || names[1] != "b" || args[0].String() != `{"x":1,"y":"two"}` || args[1].String() != "{}" || ids[0] == ids[1] {
		t.Errorf("tool calls = ids %v names %v args %q %q", ids, names, args[0], args[1])
	}
	if len(finish) != 1 || finish[0] != "tool_calls" {
		t.Errorf("finish reasons = %v, want one tool_calls", finish)
	}
	if l, ok := get(usageChunk, "choices").([]any); !ok || len(l) != 0 {
		t.Errorf("usage chunk choices = %v, want []", get(usageChunk, "choices"))
	}
	if num(usageChunk, "usage", "prompt_tokens") != 7 || num(usageChunk, "usage", "completion_tokens") != 9 || num(usageChunk, "usage", "total_tokens") != 16 {
		t.Errorf("usage chunk = %v", get(usageChunk, "usage"))
	}
}

func TestChatStreamWithoutUsage(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "ok"})
	evs := readEvents(t, send(t, srv, ChatCompletions, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	for i, e := range evs {
		if e.Data != nil && has(e.Data, "usage") {
			t.Errorf("event %d has a usage key although include_usage was not asked", i)
		}
	}
	if n := len(evs); n != 4 { // role, "ok", finish, [DONE]
		t.Errorf("got %d events, want 4", n)
	}
}
