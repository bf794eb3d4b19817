package main

import (
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Every JSON hermes prints with token counts has total_tokens, whether or
// not the vendor sent one: chat --json, sessions show and stats, and model
// call.
func TestJSONOutputsHaveTotalTokens(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "hi", Usage: &llm.Usage{InputTokens: 12, OutputTokens: 3}},
		llmtest.Reply{Text: "pong", Usage: &llm.Usage{InputTokens: 7, OutputTokens: 2}})
	out, r := h.chatIn(srv, t.TempDir(), "hello")
	if r.code != 0 {
		t.Fatalf("chat: %s", r.stderr)
	}
	total := func(name string, raw []byte, path ...string) float64 {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, raw)
		}
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		n, ok := v.(float64)
		if !ok {
			t.Errorf("%s has no total_tokens at %v:\n%s", name, path, raw)
		}
		return n
	}
	if n := total("chat --json", []byte(r.stdout), "usage", "total_tokens"); n != 15 {
		t.Errorf("chat --json total_tokens %v, want 15", n)
	}
	show := h.hermes("sessions", "show", out.SessionID, "--json")
	total("sessions show --json", []byte(show.stdout), "session", "total_tokens")
	stats := h.hermes("sessions", "stats", "--json")
	if n := total("sessions stats --json", []byte(stats.stdout), "total_tokens"); n != 15 {
		t.Errorf("stats total_tokens %v, want 15", n)
	}
	call := h.hermes(append([]string{"model", "call", "--json"}, append(endpointFlags(srv, "chat_completions"), "ping")...)...)
	if n := total("model call --json", []byte(call.stdout), "usage", "total_tokens"); n != 9 {
		t.Errorf("model call total_tokens %v, want 9", n)
	}
}
