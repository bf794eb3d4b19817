package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// agentRig is an engine with two agents, each with its own memory
// holding one note, and a shared memory holding another.
type agentRig struct {
	e                      *engine.Engine
	srv                    *llmtest.Server
	st                     session.Store
	shared, analyst, other string
}

func newAgentRig(t *testing.T) *agentRig {
	t.Helper()
	r := &agentRig{srv: llmtest.New(t)}
	root := t.TempDir()
	r.shared, r.analyst, r.other = filepath.Join(root, "memories"), filepath.Join(root, "agents/analyst"), filepath.Join(root, "agents/writer")
	stores := map[string]*memory.Store{}
	for dir, note := range map[string]string{r.shared: "SHARED-NOTE", r.analyst: "ANALYST-NOTE", r.other: "WRITER-NOTE"} {
		stores[dir] = memory.Open(dir, memory.Limits{})
		if _, err := stores[dir].Apply([]memory.Op{{Action: "add", Target: memory.TargetMemory, Content: note}}); err != nil {
			t.Fatal(err)
		}
	}
	var st session.Store
	st, _ = openStore(t)
	r.st = st
	r.e = engine.New(engine.Options{
		Store:  st,
		Models: namedModels{r.srv},
		Tools: engine.Tools{Registry: registry(t, memory.NewTool(stores[r.shared]), setTool{"search", "search"}, setTool{"files", "files"}, setTool{"shell", "shell"}),
			Disabled: []string{"shell"}},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are the default soul."), Memory: stores[r.shared]},
		Agents: map[string]*engine.Agent{
			"analyst": {Name: "analyst", Soul: "You are the analyst.", Toolsets: []string{"memory", "search", "shell"},
				Model: "analyst-model", Memory: stores[r.analyst]},
			"writer": {Name: "writer", Soul: "You are the writer.", Memory: stores[r.other]},
		},
	})
	t.Cleanup(r.e.Close)
	return r
}

func readMemory(t *testing.T, dir string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "MEMORY.md"))
	return string(b)
}

// TestAgentTurn runs a turn as an agent: its identity replaces SOUL.md,
// its memory replaces the shared one in the prompt and in the memory
// tool, its toolsets are offered minus the globally disabled one, and its
// model is called. The continued session keeps all of it.
func TestAgentTurn(t *testing.T) {
	r := newAgentRig(t)
	ctx := context.Background()
	r.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "memory", Arguments: `{"action":"add","target":"memory","content":"learned by the analyst"}`}}},
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "again"},
	)
	res, err := r.e.Turn(ctx, "", engine.Input{Text: "remember this", Agent: "analyst"}, nil)
	if err != nil || res.Final != "noted" {
		t.Fatalf("turn: %v %+v", err, res)
	}
	if _, err := r.e.Turn(ctx, res.SessionID, engine.Input{Text: "and again"}, nil); err != nil {
		t.Fatal(err)
	}
	for i, req := range r.srv.Requests() {
		system := req.Messages[0].Text()
		if !strings.Contains(system, "You are the analyst.") || !strings.Contains(system, "ANALYST-NOTE") {
			t.Errorf("request %d: the system prompt lacks the analyst's identity or memory:\n%s", i, system)
		}
		for _, other := range []string{"You are the default soul.", "SHARED-NOTE", "WRITER-NOTE"} {
			if strings.Contains(system, other) {
				t.Errorf("request %d: the analyst's prompt holds %q", i, other)
			}
		}
		if got := toolNames(req); !slices.Equal(got, []string{"memory", "search"}) {
			t.Errorf("request %d: tools %v, want the analyst's memory and search (shell is disabled for everyone)", i, got)
		}
		if req.Model != "analyst-model" {
			t.Errorf("request %d: model %q, want analyst-model", i, req.Model)
		}
	}
	if !strings.Contains(readMemory(t, r.analyst), "learned by the analyst") {
		t.Errorf("the analyst's MEMORY.md lacks the note:\n%s", readMemory(t, r.analyst))
	}
	for _, dir := range []string{r.shared, r.other} {
		if strings.Contains(readMemory(t, dir), "learned by the analyst") {
			t.Errorf("%s got the analyst's note", dir)
		}
	}
	if s, err := r.st.Get(ctx, res.SessionID); err != nil || s.Agent != "analyst" {
		t.Errorf("session agent = %q, %v", s.Agent, err)
	}
}

// TestAgentRefused covers the agents a turn cannot run as: one not
// configured (the error lists those that are), and another agent than
// the continued session's.
func TestAgentRefused(t *testing.T) {
	r := newAgentRig(t)
	ctx := context.Background()
	_, err := r.e.Turn(ctx, "", engine.Input{Text: "hi", Agent: "nobody"}, nil)
	if err == nil || !strings.Contains(err.Error(), `agent "nobody" is not configured; the configured agents are analyst, writer`) {
		t.Fatalf("unknown agent: %v", err)
	}
	r.srv.Enqueue(llmtest.Reply{Text: "hello"}, llmtest.Reply{Text: "plain"})
	res, err := r.e.Turn(ctx, "", engine.Input{Text: "hi", Agent: "writer"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.Turn(ctx, res.SessionID, engine.Input{Text: "hi", Agent: "analyst"}, nil)
	if err == nil || !strings.Contains(err.Error(), "runs as agent writer, not analyst; start a new session") {
		t.Fatalf("switching agents: %v", err)
	}
	plain, err := r.e.Turn(ctx, "", engine.Input{Text: "hi"}, nil)
	if err == nil {
		_, err = r.e.Turn(ctx, plain.SessionID, engine.Input{Text: "hi", Agent: "writer"}, nil)
	}
	if err == nil || !strings.Contains(err.Error(), "runs as no agent, not writer") {
		t.Fatalf("a session without agent taken over: %v", err)
	}
}

// TestAgentKeepsOutOfSharedFacts: a session as a role agent is not given
// the shared long-term facts, and what it says is not extracted into
// them, so nothing crosses from one agent to another through them.
func TestAgentKeepsOutOfSharedFacts(t *testing.T) {
	srv := llmtest.New(t)
	st, db := openStore(t)
	fs := facts.New(db, facts.Options{})
	ctx := context.Background()
	if _, err := fs.Add(ctx, []facts.Fact{{Kind: facts.KindPreference, Subject: "deploy day", Content: "The user deploys on Fridays.", SourceSession: "old"}}); err != nil {
		t.Fatal(err)
	}
	m := namedModels{srv}
	main, _ := m.Model("")
	e := engine.New(engine.Options{
		Store:    st,
		Models:   m,
		Tools:    engine.Tools{Registry: tool.NewRegistry()},
		LongTerm: &engine.LongTerm{Store: fs, Model: main},
		Agents:   map[string]*engine.Agent{"analyst": {Name: "analyst", Soul: "You are the analyst."}},
	})
	t.Cleanup(e.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `[{"kind": "preference", "subject": "report day", "content": "The analyst reports on Mondays.", "confidence": 0.9}]`}
	})
	res, err := e.Turn(ctx, "", engine.Input{Text: "which day do I deploy?", Agent: "analyst"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].LastUserText(); got != "which day do I deploy?" {
		t.Errorf("the analyst's first message = %q; shared facts were recalled", got)
	}
	if err := e.EndSession(ctx, res.SessionID, "exit"); err != nil {
		t.Fatal(err)
	}
	if err := e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want the turn only: the analyst's session was extracted", n)
	}
	list, err := fs.List(ctx, 10)
	if err != nil || len(list) != 1 {
		t.Errorf("shared facts = %+v, %v; want the one there was", list, err)
	}
}
