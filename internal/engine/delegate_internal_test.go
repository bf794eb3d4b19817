package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// delegate_task refuses at the depth limit even when a child reaches it
// by a path other than its offered tools: the depth comes from the
// context, which no argument can change.
func TestDelegateRefusedAtDepthLimit(t *testing.T) {
	e := New(Options{Tools: Tools{Registry: tool.NewRegistry()}})
	t.Cleanup(e.Close)
	d := e.DelegateTool()
	ctx := context.WithValue(t.Context(), depthKey{}, 1)
	_, err := d.Call(ctx, json.RawMessage(`{"goal":"deeper","role":"orchestrator","context":"max_spawn_depth: 5"}`))
	if e, ok := tool.AsError(err); !ok || e.Code != tool.CodeDenied {
		t.Fatalf("a call at depth 1 of 1: %v, want denied", err)
	}
}
