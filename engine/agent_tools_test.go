package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/engine"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// ownTool is a tool named name that answers answer; off makes it
// unavailable.
type ownTool struct {
	name, toolset, answer string
	off                   bool
}

func (o ownTool) Spec() tool.Spec {
	return tool.Spec{Name: o.name, Description: "The " + o.answer + " " + o.name + ".", Toolset: o.toolset,
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (o ownTool) Call(context.Context, json.RawMessage) (any, error) { return o.answer, nil }

func (o ownTool) Available() error {
	if o.off {
		return errors.New("off")
	}
	return nil
}

// lastToolResult is the text of the last tool message the model got.
func lastToolResult(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleTool {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// TestAgentToolsReplaceHermes: an agent's own tool stands in for hermes's
// tool of the same name in that agent's turns only, also when hermes's is
// unavailable at the time; an own tool whose name the agent's toolsets do
// not select is not offered.
func TestAgentToolsReplaceHermes(t *testing.T) {
	for _, off := range []bool{false, true} {
		srv := llmtest.New(t)
		st, _ := openStore(t)
		reg := registry(t, ownTool{name: "lookup", toolset: "knowledge", answer: "HERMES-ANSWER", off: off},
			setTool{"files", "files"})
		e := engine.New(engine.Options{Store: st, Models: namedModels{srv}, Tools: engine.Tools{Registry: reg},
			Agents: map[string]*engine.Agent{
				"analyst": {Name: "analyst", Toolsets: []string{"knowledge"},
					Tools: []tool.Tool{ownTool{name: "lookup", toolset: "knowledge", answer: "ANALYST-ANSWER"},
						ownTool{name: "files", toolset: "files", answer: "ANALYST-FILES"}}},
				"writer": {Name: "writer"},
			}})
		t.Cleanup(e.Close)
		call := llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "lookup", Arguments: `{}`}}}
		for _, tc := range []struct{ agent, want string }{
			{"analyst", "ANALYST-ANSWER"},
			{"writer", "HERMES-ANSWER"},
			{"", "HERMES-ANSWER"},
			{"analyst", "ANALYST-ANSWER"},
		} {
			if off && tc.want == "HERMES-ANSWER" {
				continue
			}
			before := len(srv.Requests())
			srv.Enqueue(call, llmtest.Reply{Text: "ok"})
			if _, err := e.Turn(t.Context(), "", engine.Input{Text: "look it up", Agent: tc.agent}, nil); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()[before:]
			if got := lastToolResult(reqs[len(reqs)-1]); !strings.Contains(got, tc.want) {
				t.Errorf("hermes's unavailable %v, agent %q: lookup answered %q, want %s", off, tc.agent, got, tc.want)
			}
			if tc.agent == "analyst" {
				if got := toolNames(reqs[0]); !slices.Equal(got, []string{"lookup"}) {
					t.Errorf("the analyst is offered %v; its files tool is outside its toolsets", got)
				}
				if d := reqs[0].Tools[0].Description; !strings.Contains(d, "ANALYST-ANSWER") {
					t.Errorf("the analyst is offered lookup described as %q", d)
				}
			}
		}
	}
}
