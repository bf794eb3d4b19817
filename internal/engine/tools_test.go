package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tool"
)

// namedTool is a tool of a given name that answers "called NAME".
type namedTool struct{ name string }

func (n namedTool) Spec() tool.Spec {
	return tool.Spec{Name: n.name, Description: "A session's own tool.", Toolset: "mcp-editor",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (n namedTool) Call(context.Context, json.RawMessage) (any, error) {
	return "called " + n.name, nil
}

// TestInputToolsAreTheTurnsOnly checks that a turn's own tools are offered
// and run in that turn next to the engine's, are not offered to a turn
// without them, and that one named like an engine tool stops the turn
// with an error naming it.
func TestInputToolsAreTheTurnsOnly(t *testing.T) {
	e, srv, _ := newEngine(t)
	ctx := context.Background()
	own := registry(t, namedTool{"mcp__editor__lookup"})
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "mcp__editor__lookup", Arguments: `{}`}}},
		llmtest.Reply{Text: "Looked up."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "mcp__editor__lookup", Arguments: `{}`}}},
		llmtest.Reply{Text: "Cannot."},
	)
	res, err := e.Turn(ctx, "", engine.Input{Text: "look it up", Tools: own}, nil)
	if err != nil || res.Final != "Looked up." {
		t.Fatalf("turn with own tools: %v %+v", err, res)
	}
	if _, err := e.Turn(ctx, "", engine.Input{Text: "again"}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	offered := func(r llmtest.Request) []string {
		var names []string
		for _, s := range r.Tools {
			names = append(names, s.Name)
		}
		return names
	}
	if got := offered(reqs[0]); !slices.Equal(got, []string{"echo", "mcp__editor__lookup"}) {
		t.Errorf("turn with own tools offered %v", got)
	}
	if got := reqs[1].Messages[len(reqs[1].Messages)-1].Text(); !strings.Contains(got, "called mcp__editor__lookup") {
		t.Errorf("tool result %q", got)
	}
	if got := offered(reqs[2]); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("another turn offered %v", got)
	}
	if got := reqs[3].Messages[len(reqs[3].Messages)-1].Text(); !strings.Contains(got, "not_found") && !strings.Contains(got, "no tool") {
		t.Errorf("calling the tool elsewhere gave %q; want it refused", got)
	}
	_, err = e.Turn(ctx, "", engine.Input{Text: "clash", Tools: registry(t, namedTool{"echo"})}, nil)
	if err == nil || !strings.Contains(err.Error(), `tool "echo" is already registered`) || !strings.Contains(err.Error(), "rename the MCP server") {
		t.Errorf("clashing tool: %v", err)
	}
}
