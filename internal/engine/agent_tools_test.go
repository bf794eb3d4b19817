package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tool"
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

// TestAgentToolsReachItsChildren: a child that a role agent's turn
// delegates to is offered the agent's own tool, not hermes's tool of the
// same name, so delegating does not widen what the agent may use.
func TestAgentToolsReachItsChildren(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	reg := registry(t, ownTool{name: "lookup", toolset: "knowledge", answer: "HERMES-ANSWER"})
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: reg},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
		Agents: map[string]*engine.Agent{"analyst": {Name: "analyst", Toolsets: []string{"knowledge", "delegation"},
			Tools: []tool.Tool{ownTool{name: "lookup", toolset: "knowledge", answer: "ANALYST-ANSWER"}}}}})
	t.Cleanup(e.Close)
	if err := reg.Register(e.DelegateTool()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var childSaw []string
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Role == llm.RoleTool
		switch first := firstUser(r); {
		case strings.HasPrefix(first, "Look up the plan"):
			if last {
				return llmtest.Reply{Text: "done"}
			}
			return delegateCall("look up the hr plan")
		case last:
			mu.Lock()
			childSaw = append(childSaw, lastToolResult(r))
			mu.Unlock()
			return llmtest.Reply{Text: "child done"}
		default:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "lookup", Arguments: `{}`}}}
		}
	})
	if _, err := e.Turn(t.Context(), "", engine.Input{Text: "Look up the plan", Agent: "analyst"}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(childSaw) != 1 || !strings.Contains(childSaw[0], "ANALYST-ANSWER") {
		t.Errorf("the child's lookup answered %q, want the analyst's", childSaw)
	}
}

// TestTeamWorkerUsesItsAgentsTools: a team's task runs as its role
// agent, with the agent's own tool in place of hermes's.
func TestTeamWorkerUsesItsAgentsTools(t *testing.T) {
	r := newTeamRig(t)
	e := engine.New(engine.Options{
		Store:  r.st,
		Models: model(r.srv),
		Tools:  engine.Tools{Registry: registry(t, ownTool{name: "fetch", toolset: "web", answer: "HERMES-FETCH"})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are hermes.")},
		Agents: map[string]*engine.Agent{
			"lead": {Name: "lead", Soul: "You are the lead."},
			"collector": {Name: "collector", Description: "reads the sources", Soul: "You are the collector.", Toolsets: []string{"web"},
				Tools: []tool.Tool{ownTool{name: "fetch", toolset: "web", answer: "COLLECTOR-FETCH"}}},
			"analyst": {Name: "analyst", Description: "finds the trend", Soul: "You are the analyst."},
		},
		Teams: engine.Teams{Store: r.queue},
	})
	t.Cleanup(e.Close)
	if _, err := e.RunTeam(t.Context(), engine.TeamRun{Team: r.spec, Goal: "weekly prices"}); err != nil {
		t.Fatal(err)
	}
	fetched := false
	for _, req := range r.srv.Requests() {
		if strings.Contains(system(req), "You are the collector.") && req.Messages[len(req.Messages)-1].Role == llm.RoleTool {
			res := lastToolResult(req)
			fetched = strings.Contains(res, "COLLECTOR-FETCH")
			if !fetched {
				t.Errorf("the collector's fetch answered %q", res)
			}
		}
	}
	if !fetched {
		t.Error("the collector never fetched")
	}
}

// whoTool answers with the agent its invocation names.
type whoTool struct{}

func (whoTool) Spec() tool.Spec {
	return tool.Spec{Name: "who", Description: "Who runs.", Toolset: "who", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (whoTool) Call(ctx context.Context, _ json.RawMessage) (any, error) {
	return "agent=" + tool.InvocationFrom(ctx).Agent, nil
}

// TestToolsKnowTheTurnsAgent: a tool called in a role agent's turn is
// told the agent, also when the session is continued without naming it,
// so tools that act later (the cronjob tool) act as that agent.
func TestToolsKnowTheTurnsAgent(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{Store: st, Models: namedModels{srv}, Tools: engine.Tools{Registry: registry(t, whoTool{})},
		Agents: map[string]*engine.Agent{"analyst": {Name: "analyst"}}})
	t.Cleanup(e.Close)
	call := llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "who", Arguments: `{}`}}}
	srv.Enqueue(call, llmtest.Reply{Text: "ok"}, call, llmtest.Reply{Text: "ok"}, call, llmtest.Reply{Text: "ok"})
	res, err := e.Turn(t.Context(), "", engine.Input{Text: "who?", Agent: "analyst"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(t.Context(), res.SessionID, engine.Input{Text: "who now?"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(t.Context(), "", engine.Input{Text: "who?"}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, want := range map[int]string{1: "agent=analyst", 3: "agent=analyst", 5: "agent="} {
		if got := lastToolResult(reqs[i]); !strings.Contains(got, `"`+want+`"`) {
			t.Errorf("turn %d: the tool was told %s, want %s", i/2, got, want)
		}
	}
}

// switchTool is a tool named lookup that is available while on holds.
type switchTool struct{ on *atomic.Bool }

func (s switchTool) Spec() tool.Spec {
	return tool.Spec{Name: "lookup", Description: "The agent's lookup.", Toolset: "knowledge", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (switchTool) Call(context.Context, json.RawMessage) (any, error) { return "ANALYST-ANSWER", nil }

func (s switchTool) Available() error {
	if !s.on.Load() {
		return errors.New("its knowledge bases are empty")
	}
	return nil
}

// TestAgentToolsFollowTheRegistry: an agent's tools are asked again
// whether they are available when hermes's registry is refreshed (as
// after a knowledge base is filled), and a tool registered later (an MCP
// server that came up) reaches the agent's turns too.
func TestAgentToolsFollowTheRegistry(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	reg := registry(t, ownTool{name: "lookup", toolset: "knowledge", answer: "HERMES-ANSWER"})
	on := &atomic.Bool{}
	e := engine.New(engine.Options{Store: st, Models: namedModels{srv}, Tools: engine.Tools{Registry: reg},
		Agents: map[string]*engine.Agent{"analyst": {Name: "analyst", Tools: []tool.Tool{switchTool{on}}}}})
	t.Cleanup(e.Close)
	offered := func() []string {
		t.Helper()
		before := len(srv.Requests())
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		if _, err := e.Turn(t.Context(), "", engine.Input{Text: "hi", Agent: "analyst"}, nil); err != nil {
			t.Fatal(err)
		}
		return toolNames(srv.Requests()[before])
	}
	if got := offered(); len(got) != 0 {
		t.Fatalf("offered %v while the agent's lookup is unavailable", got)
	}
	on.Store(true)
	reg.Refresh()
	if got := offered(); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("after a refresh the agent is offered %v, want its lookup", got)
	}
	if err := reg.Register(setTool{"mcp_fetch", "mcp"}); err != nil {
		t.Fatal(err)
	}
	if got := offered(); !slices.Equal(got, []string{"lookup", "mcp_fetch"}) {
		t.Errorf("after a registration the agent is offered %v", got)
	}
}
