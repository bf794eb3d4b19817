package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// Conversations that share ToolEncodings encode a tool list once between
// them, per format; a list that differs in any tool is encoded afresh,
// and each conversation gets the encoding of its own list.
func TestToolEncodingsShared(t *testing.T) {
	var shared ToolEncodings
	var calls atomic.Int32
	enc := func(ts []ToolSpec) ([]byte, error) {
		calls.Add(1)
		return json.Marshal(ts)
	}
	tools := []ToolSpec{{Name: "a", Description: "first", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "b"}}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			c := &WireCache{Shared: &shared}
			for range 3 {
				if _, err := c.Tools("chat", tools, enc); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// Conversations that miss at the same moment may each encode once.
	if n := calls.Load(); n < 1 || n > 20 {
		t.Fatalf("20 conversations with the same tools: %d encodings", n)
	}
	calls.Store(0)
	if _, err := (&WireCache{Shared: &shared}).Tools("chat", tools, enc); err != nil || calls.Load() != 0 {
		t.Errorf("a new conversation with the same tools encoded them %d times (%v)", calls.Load(), err)
	}
	if _, _ = (&WireCache{Shared: &shared}).Tools("anthropic", tools, enc); calls.Load() != 1 {
		t.Errorf("another format: %d encodings, want 1", calls.Load())
	}
	for i, change := range []func([]ToolSpec){
		func(ts []ToolSpec) { ts[0].Name = "z" },
		func(ts []ToolSpec) { ts[0].Description = "changed" },
		func(ts []ToolSpec) { ts[0].Parameters = json.RawMessage(`{"type":"object","properties":{}}`) },
	} {
		other := slices.Clone(tools)
		change(other)
		calls.Store(0)
		b, err := (&WireCache{Shared: &shared}).Tools("chat", other, enc)
		want, _ := json.Marshal(other)
		if err != nil || calls.Load() != 1 || string(b) != string(want) {
			t.Errorf("change %d: %d encodings, got %s, want %s (%v)", i, calls.Load(), b, want, err)
		}
	}
}

// The shared entries are bounded; the oldest goes first.
func TestToolEncodingsBounded(t *testing.T) {
	var shared ToolEncodings
	calls := 0
	enc := func(ts []ToolSpec) ([]byte, error) {
		calls++
		return json.Marshal(ts)
	}
	list := func(i int) []ToolSpec { return []ToolSpec{{Name: fmt.Sprint("t", i)}} }
	for i := range maxToolEncodings + 1 {
		shared.get("chat", list(i), enc)
	}
	if len(shared.entries) != maxToolEncodings {
		t.Fatalf("%d entries, want %d", len(shared.entries), maxToolEncodings)
	}
	calls = 0
	shared.get("chat", list(maxToolEncodings), enc)
	shared.get("chat", list(0), enc)
	if calls != 1 {
		t.Errorf("the newest list and the evicted oldest: %d encodings, want 1 (the oldest)", calls)
	}
}
