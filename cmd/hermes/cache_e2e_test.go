package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestPromptPrefixStableAndMarked: over the Anthropic protocol, two
// consecutive requests of a turn carry byte-identical system prompts and
// tool definitions, with cache breakpoints on both and on the last user
// turn, so the provider's cache holds everything but the newest messages.
func TestPromptPrefixStableAndMarked(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "model: {cache_ttl: 1h}\n")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo hi")}},
		llmtest.Reply{Text: "done"},
	)
	h.cwd = t.TempDir()
	r := h.hermes("chat", "--api-mode", "anthropic_messages", "--base-url", srv.URL(), "--model", "claude-test",
		"--api-key", "sk-ant-test-1234567890", "--yolo", "-q", "say hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var bodies [2]struct {
		System   json.RawMessage `json:"system"`
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	for i := range bodies {
		if err := json.Unmarshal(reqs[i].Body, &bodies[i]); err != nil {
			t.Fatal(err)
		}
	}
	if string(bodies[0].System) != string(bodies[1].System) || len(bodies[0].System) < 100 {
		t.Errorf("the system prompt differs between the turn's requests")
	}
	if string(bodies[0].Tools) != string(bodies[1].Tools) || len(bodies[0].Tools) < 1000 {
		t.Errorf("the tool definitions differ between the turn's requests")
	}
	const mark = `"cache_control":{"type":"ephemeral","ttl":"1h"}`
	for i, b := range bodies {
		for part, raw := range map[string]json.RawMessage{"system": b.System, "tools": b.Tools, "messages": b.Messages} {
			if !strings.Contains(string(raw), mark) {
				t.Errorf("request %d: no cache breakpoint in %s", i, part)
			}
		}
	}
	// The first request's messages are a prefix of the second's.
	first := strings.TrimSuffix(string(bodies[0].Messages), "]")
	first = strings.ReplaceAll(first, ","+mark, "")
	second := strings.ReplaceAll(string(bodies[1].Messages), ","+mark, "")
	if !strings.HasPrefix(second, first) {
		t.Errorf("the second request does not extend the first:\n%s\n%s", first, second)
	}
}

// TestUsageAndCost: usage reported by the model is summed on the session
// with an estimated cost (config pricing wins over the built-in table),
// shown by /usage in the chat and by hermes sessions stats.
func TestUsageAndCost(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "pricing:\n  test-model: {input: 2, output: 10, cache_read: 0.5}\n")
	srv := llmtest.New(t)
	u := llm.Usage{InputTokens: 100_000, OutputTokens: 10_000, CacheReadTokens: 80_000}
	srv.Enqueue(llmtest.Reply{Text: "one", Usage: &u}, llmtest.Reply{Text: "two", Usage: &u})
	out := h.chatScript(srv, "", "/usage\nfirst\nsecond\n/usage\n/exit\n")
	// Per call: 20,000 uncached × $2/M + 80,000 cached × $0.5/M + 10,000
	// out × $10/M = $0.04 + $0.04 + $0.10 = $0.18; two calls, $0.36.
	for _, want := range []string{"No session yet", "input    200000 tokens (160000 read from cache, 80%", "cost     $0.3600"} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat output lacks %q:\n%s", want, out)
		}
	}
	if r := h.hermes("sessions", "stats"); !strings.Contains(r.stdout, "cost:         $0.3600") {
		t.Errorf("sessions stats:\n%s", r.stdout)
	}
}
