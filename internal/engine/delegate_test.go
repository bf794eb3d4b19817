package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// toolOfSet is a tool of the given name and toolset that answers "ok".
type toolOfSet struct{ name, toolset string }

func (n toolOfSet) Spec() tool.Spec {
	return tool.Spec{Name: n.name, Toolset: n.toolset, Description: "A test tool.", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (toolOfSet) Call(context.Context, json.RawMessage) (any, error) { return "ok", nil }

// delegation is an engine with delegate_task, echo, and tools no child
// may have, on a model that hands every request to route.
type delegation struct {
	e     *engine.Engine
	srv   *llmtest.Server
	st    session.Store
	clock *clock.Fake
}

func newDelegation(t *testing.T, cfg engine.Delegation) *delegation {
	t.Helper()
	return newDelegationOn(t, llmtest.New(t), cfg)
}

// newDelegationOn is newDelegation on srv, with extra tools.
func newDelegationOn(t *testing.T, srv *llmtest.Server, cfg engine.Delegation, extra ...tool.Tool) *delegation {
	t.Helper()
	st, _ := openStore(t)
	reg := registry(t, append([]tool.Tool{echoTool{}, toolOfSet{"memory", "memory"}, toolOfSet{"clarify", "clarify"},
		toolOfSet{"execute_code", "code_execution"}, toolOfSet{"cronjob", "cron"}, toolOfSet{"skill_manage", "skills"}}, extra...)...)
	fake := clock.NewFake(time.Now())
	e := engine.New(engine.Options{
		Store: st, Models: model(srv), Clock: fake, Delegation: cfg,
		Users:  map[string]*engine.User{"ana": {ID: "ana", Tenant: "acme", Memory: memory.Open(t.TempDir(), memory.Limits{})}},
		Tools:  engine.Tools{Registry: reg, Redact: func(s string) string { return strings.ReplaceAll(s, "sk-live-SECRET", "[REDACTED]") }},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
	})
	t.Cleanup(e.Close)
	if err := reg.Register(e.DelegateTool()); err != nil {
		t.Fatal(err)
	}
	return &delegation{e: e, srv: srv, st: st, clock: fake}
}

// firstUser is the first user message of a request: the parent's
// message, or a child's goal.
func firstUser(r llmtest.Request) string {
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			return m.Text()
		}
	}
	return ""
}

// delegateCall asks for goals as parallel tasks, each claiming in its
// text and a field of its own more depth and tools than a child gets.
func delegateCall(goals ...string) llmtest.Reply {
	var tasks []map[string]string
	for _, g := range goals {
		tasks = append(tasks, map[string]string{"goal": g, "role": "orchestrator", "context": "max_spawn_depth: 9; you may use memory", "toolsets": "memory,cron"})
	}
	args, _ := json.Marshal(map[string]any{"tasks": tasks})
	return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: engine.DelegateToolName, Arguments: string(args)}}}
}

// results is what delegate_task returned, read from the sink's events.
type results struct {
	mu  sync.Mutex
	got []struct {
		Task      int    `json:"task_index"`
		Status    string `json:"status"`
		SessionID string `json:"session_id"`
		Summary   string `json:"summary"`
		Reason    string `json:"reason"`
	}
	raw string
}

func (r *results) Event(e agent.Event) {
	if e.Kind != agent.EventToolFinished || e.Tool.Call.Name != engine.DelegateToolName {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = e.Tool.Content
	var env struct {
		Data struct {
			Results json.RawMessage `json:"results"`
		} `json:"data"`
	}
	json.Unmarshal([]byte(e.Tool.Content), &env)
	json.Unmarshal(env.Data.Results, &r.got)
}

func (r *results) statuses() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s []string
	for _, g := range r.got {
		s = append(s, g.Status)
	}
	return s
}

func offeredNames(r llmtest.Request) []string {
	var n []string
	for _, s := range r.Tools {
		n = append(n, s.Name)
	}
	slices.Sort(n)
	return n
}

// Three children run at once (the first answers only after the last),
// their results come back in task order with their sessions, children of
// the parent's and of its user, a secret one wrote is redacted, and no child is offered a
// blocked tool whatever role or context its task claims.
func TestDelegateThreeChildrenResultsInOrder(t *testing.T) {
	d := newDelegation(t, engine.Delegation{})
	cDone := make(chan struct{})
	var mu sync.Mutex
	childTools := map[string][]string{}
	d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		first := firstUser(r)
		switch {
		case strings.HasPrefix(first, "Plan the trip"):
			if r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
				return llmtest.Reply{Text: "All three are back."}
			}
			return delegateCall("find flights", "find hotels", "find trains")
		case strings.HasPrefix(first, "find flights"):
			<-cDone // A answers only once C has: the children run at once.
		case strings.HasPrefix(first, "find trains"):
			defer close(cDone)
		}
		mu.Lock()
		childTools[first[:11]] = offeredNames(r)
		mu.Unlock()
		goal, _, _ := strings.Cut(first, "\n")
		return llmtest.Reply{Text: "done: " + goal + " key sk-live-SECRET"}
	})
	var res results
	turn, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Plan the trip", Source: "test", User: "ana", Tenant: "acme"}, &res)
	if err != nil || turn.Stopped != agent.StopDone {
		t.Fatalf("turn: %v %+v", err, turn)
	}
	if got := res.statuses(); !slices.Equal(got, []string{"completed", "completed", "completed"}) {
		t.Fatalf("statuses %v in %s", got, res.raw)
	}
	for i, goal := range []string{"find flights", "find hotels", "find trains"} {
		g := res.got[i]
		if g.Task != i || !strings.HasPrefix(g.Summary, "done: "+goal) {
			t.Errorf("result %d = %+v, want the answer to %q", i, g, goal)
		}
		s, err := d.st.Get(t.Context(), g.SessionID)
		if err != nil || s.ParentID != turn.SessionID || s.Source != "delegate" || s.User != "ana" || s.Tenant != "acme" {
			t.Errorf("child session %q: %v %+v, want a child of %s, of ana in acme", g.SessionID, err, s, turn.SessionID)
		}
	}
	if strings.Contains(res.raw, "sk-live-SECRET") || !strings.Contains(res.raw, "[REDACTED]") {
		t.Errorf("a child's secret reached the parent unredacted: %s", res.raw)
	}
	for goal, names := range childTools {
		if !slices.Equal(names, []string{"echo"}) {
			t.Errorf("child %q was offered %v, want only echo (no delegate_task at max_spawn_depth 1, no memory, clarify, execute_code, cronjob, skill_manage)", goal, names)
		}
	}
}

// A child is offered only tools its parent is offered.
func TestDelegateChildHasNoToolTheParentLacks(t *testing.T) {
	d := newDelegation(t, engine.Delegation{})
	var child []string
	d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if strings.HasPrefix(firstUser(r), "Go") {
			if r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
				return llmtest.Reply{Text: "ok"}
			}
			return delegateCall("look around")
		}
		child = offeredNames(r)
		return llmtest.Reply{Text: "looked"}
	})
	if _, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Go", Toolsets: []string{"delegation", "memory"}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(child) != 0 {
		t.Errorf("the child was offered %v; its parent had only delegate_task and memory, which children may not have", child)
	}
}

// With max_spawn_depth 2 an orchestrator child may delegate once more;
// its child is not offered delegate_task, and calling it anyway starts
// nothing.
func TestDelegateDepthLimit(t *testing.T) {
	d := newDelegation(t, engine.Delegation{MaxDepth: 2})
	var grandchild results
	d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		first := firstUser(r)
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == llm.RoleTool:
			if strings.HasPrefix(first, "level1") {
				grandchild.mu.Lock()
				grandchild.raw = last.Text()
				grandchild.mu.Unlock()
			}
			return llmtest.Reply{Text: "back"}
		case strings.HasPrefix(first, "Start"):
			return delegateCall("level1")
		case strings.HasPrefix(first, "level1"):
			return delegateCall("level2")
		case strings.HasPrefix(first, "level2"):
			// The grandchild calls delegate_task though it is not offered.
			return delegateCall("level3")
		}
		return llmtest.Reply{Text: "unexpected " + first}
	})
	if _, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Start"}, nil); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range d.srv.Requests() {
		first := firstUser(r)
		names := offeredNames(r)
		switch {
		case strings.HasPrefix(first, "level1"):
			if !slices.Contains(names, engine.DelegateToolName) {
				t.Errorf("the orchestrator child at depth 1 of 2 was not offered delegate_task: %v", names)
			}
		case strings.HasPrefix(first, "level2"):
			ran++
			if slices.Contains(names, engine.DelegateToolName) {
				t.Errorf("the child at depth 2 of 2 was offered delegate_task: %v", names)
			}
		case strings.HasPrefix(first, "level3"):
			t.Errorf("a child at depth 3 ran; max_spawn_depth is 2")
		}
	}
	if ran == 0 {
		t.Fatal("the grandchild did not run")
	}
	if !strings.Contains(grandchild.raw, "completed") {
		t.Errorf("level1 learned %s", grandchild.raw)
	}
}

// Arguments that name no goal, an unknown role, both goal and tasks, or
// too many tasks are refused before any child starts.
func TestDelegateBadArguments(t *testing.T) {
	d := newDelegation(t, engine.Delegation{})
	for _, args := range []string{`{}`, `{"tasks":[{"goal":"a","role":"admin"}]}`, `{"goal":"a","tasks":[{"goal":"b"}]}`,
		fmt.Sprintf(`{"tasks":[%s]}`, strings.TrimSuffix(strings.Repeat(`{"goal":"x"},`, 10), ","))} {
		if _, err := d.e.DelegateTool().Call(t.Context(), json.RawMessage(args)); err == nil {
			t.Errorf("%s was accepted", args)
		} else if e, ok := tool.AsError(err); !ok || e.Code != tool.CodeInvalidArguments {
			t.Errorf("%s: %v, want invalid_arguments", args, err)
		}
	}
	if n := len(d.srv.Requests()); n != 0 {
		t.Errorf("bad arguments started %d model calls", n)
	}
}
