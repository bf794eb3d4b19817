package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/todo"
)

// namedModels resolves any name on srv, and refuses "missing".
type namedModels struct{ srv *llmtest.Server }

func (n namedModels) Model(name string) (engine.Model, error) {
	switch name {
	case "missing":
		return engine.Model{}, fmt.Errorf("model %q: no provider serves it", name)
	case "":
		name = "main-model"
	}
	p := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: n.srv.URL() + "/v1", APIKey: "k", Model: name})
	return engine.Model{Provider: p, Name: name}, nil
}

// setTool is a tool of its own toolset.
type setTool struct{ name, toolset string }

func (s setTool) Spec() tool.Spec {
	return tool.Spec{Name: s.name, Description: "A tool of " + s.toolset + ".", Toolset: s.toolset,
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (setTool) Call(context.Context, json.RawMessage) (any, error) { return "done", nil }

func toolNames(r llmtest.Request) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// TestTurnInputSelectsToolsAndModel: one engine serves turns that differ
// in toolsets and model; what differs is the input, and the default
// selection and the disabled toolsets still apply.
func TestTurnInputSelectsToolsAndModel(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	reg := registry(t, setTool{"web_search", "web"}, setTool{"terminal", "terminal"}, setTool{"send_mail", "mail"})
	e := engine.New(engine.Options{Store: st, Models: namedModels{srv},
		Tools: engine.Tools{Registry: reg, Toolsets: []string{"web", "terminal"}, Disabled: []string{"mail"}}})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
	if _, err := e.Turn(ctx, "", engine.Input{Text: "default"}, nil); err != nil {
		t.Fatal(err)
	}
	job, err := e.Turn(ctx, "", engine.Input{Text: "a job's turn", Toolsets: []string{"web"}, Model: "cheap-model"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(ctx, "", engine.Input{Text: "all but disabled", Toolsets: []string{"all"}}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, want := range []struct {
		model string
		tools []string
	}{
		{"main-model", []string{"terminal", "web_search"}},
		{"cheap-model", []string{"web_search"}},
		{"main-model", []string{"terminal", "web_search"}},
	} {
		if reqs[i].Model != want.model || !slices.Equal(toolNames(reqs[i]), want.tools) {
			t.Errorf("turn %d sent model %q with tools %v, want %q with %v", i, reqs[i].Model, toolNames(reqs[i]), want.model, want.tools)
		}
	}
	if s, err := st.Get(ctx, job.SessionID); err != nil || s.Model != "cheap-model" {
		t.Errorf("the job's session records model %q (%v), want cheap-model", s.Model, err)
	}
	if _, err := e.Turn(ctx, "", engine.Input{Text: "x", Toolsets: []string{"nope"}}, nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("an unknown toolset: %v", err)
	}
	if _, err := e.Turn(ctx, "", engine.Input{Text: "x", Model: "missing"}, nil); err == nil || !strings.Contains(err.Error(), "no provider serves it") {
		t.Errorf("a model that does not resolve: %v", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3: turns that cannot start call nothing", n)
	}
}

// TestApprovalIsPerTurn: one Policy, two kinds of turn. The terminal's
// turn asks its person; a job's turn in the same engine asks nobody and
// is denied, whatever the terminal granted for its own session.
func TestApprovalIsPerTurn(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	runner := &commandTool{}
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: registry(t, runner)},
		Policy: &safety.Policy{}})
	t.Cleanup(e.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.Messages[len(r.Messages)-1].Role == llm.RoleUser {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "run", Arguments: `{"command":"rm -rf build"}`}}}
		}
		return llmtest.Reply{Text: "ok"}
	})
	asked := 0
	person := prompterFunc(func(context.Context, safety.Request) (safety.Answer, error) { asked++; return safety.Session, nil })
	ctx := context.Background()
	chat, err := e.Turn(ctx, "", engine.Input{Text: "clean", Approval: safety.Asker{Prompter: person}}, nil)
	if err != nil || chat.ToolCalls[0].Status != tool.StatusOK {
		t.Fatalf("the terminal's turn: %v %+v", err, chat)
	}
	job, err := e.Turn(ctx, "", engine.Input{Text: "clean", Source: "cron"}, nil)
	if err != nil || job.ToolCalls[0].Code != tool.CodeDenied {
		t.Fatalf("the job's turn: %v %+v, want the command denied", err, job)
	}
	if asked != 1 || runner.ran != 1 {
		t.Errorf("asked %d times and ran %d commands, want 1 and 1", asked, runner.ran)
	}
}

// commandTool asks the invocation's approver before "running" a command.
type commandTool struct{ ran int }

func (*commandTool) Spec() tool.Spec {
	return tool.Spec{Name: "run", Description: "Runs a command.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
}

func (c *commandTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct{ Command string }
	json.Unmarshal(raw, &a)
	ap := tool.InvocationFrom(ctx).Approver
	if ap == nil {
		return nil, tool.Errorf(tool.CodeDenied, "nobody approves")
	}
	if err := ap.ApproveCommand(ctx, a.Command); err != nil {
		var d *safety.DeniedError
		if errors.As(err, &d) {
			return nil, tool.Errorf(tool.CodeDenied, "%v", err)
		}
		return nil, err
	}
	c.ran++
	return "ran", nil
}

type prompterFunc func(context.Context, safety.Request) (safety.Answer, error)

func (f prompterFunc) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	return f(ctx, r)
}

// TestResumeRestoresToolState: a process that continues a session gives
// the tools that keep per-session state (the todo list) its history once.
func TestResumeRestoresToolState(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	first := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: registry(t, todo.New())}})
	t.Cleanup(first.Close)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "todo", Arguments: `{"todos":[{"id":"1","content":"rotate logs","status":"in_progress"}]}`}}},
		llmtest.Reply{Text: "planned"},
	)
	ctx := context.Background()
	res, err := first.Turn(ctx, "", engine.Input{Text: "plan"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	later := todo.New()
	second := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: registry(t, later)}})
	t.Cleanup(second.Close)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "todo", Arguments: `{}`}}}, llmtest.Reply{Text: "still there"})
	if _, err := second.Turn(ctx, res.SessionID, engine.Input{Text: "where was I?"}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Text(); !strings.Contains(got, "rotate logs") {
		t.Errorf("the resumed todo list read %s, want the list from before", got)
	}
}

// TestJobRunFromATurnAsksThatTurn: approvals.cron_mode allows dangerous
// commands in scheduled jobs, yet a model in a chat cannot use that to
// get past the chat's own approval by writing the command into a job and
// running the job now: the job's turn asks whoever the chat asks. The
// same job run by the scheduler (nobody's turn) follows cron_mode.
func TestJobRunFromATurnAsksThatTurn(t *testing.T) {
	srv := llmtest.New(t)
	st, db := openStore(t)
	jobs, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runner := &commandTool{}
	reg := registry(t, runner)
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: reg}, Policy: &safety.Policy{},
		Jobs: engine.Jobs{Store: jobs, Notifier: notify.New(notify.Config{Home: t.TempDir()}),
			Approval: safety.Asker{NonInteractive: safety.NonInteractiveAllow}}})
	t.Cleanup(e.Close)
	if err := reg.Register(cron.NewTool(jobs, e)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := jobs.Create(ctx, cron.Job{Name: "cleanup", Source: cron.SourceTool, Spec: cron.Spec{Schedule: "@daily", Prompt: "clean the disk"}}); err != nil {
		t.Fatal(err)
	}
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == llm.RoleUser && strings.Contains(last.Text(), "clean the disk"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "run", Arguments: `{"command":"rm -rf /srv/data"}`}}}
		case last.Role == llm.RoleUser:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "cronjob", Arguments: `{"action":"run","name":"cleanup"}`}}}
		}
		return llmtest.Reply{Text: "done"}
	})
	asked := 0
	person := prompterFunc(func(context.Context, safety.Request) (safety.Answer, error) { asked++; return safety.Deny, nil })
	if _, err := e.Turn(ctx, "", engine.Input{Text: "run the cleanup job now", Approval: safety.Asker{Prompter: person}}, nil); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || runner.ran != 0 {
		t.Fatalf("a job run from the chat: the person was asked %d times and %d commands ran; want asked once, nothing run", asked, runner.ran)
	}
	if _, err := e.RunJobNow(ctx, "cleanup"); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || runner.ran != 1 {
		t.Errorf("the scheduler's run: asked %d times, %d commands ran; want cron_mode to allow it unasked", asked, runner.ran)
	}
}
