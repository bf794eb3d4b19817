package acp

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/internal/tool"
)

func TestInitializeAnnounces(t *testing.T) {
	r := newRig(t, nil)
	got, err := r.conn.Initialize(context.Background(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	caps := got.AgentCapabilities
	if !caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext || caps.SessionCapabilities.List == nil {
		t.Errorf("capabilities = %+v; want load, list and embedded context", caps)
	}
	if len(got.AuthMethods) != 0 || got.AgentInfo == nil || got.AgentInfo.Name != "hermes" {
		t.Errorf("initialize = %+v", got)
	}
}

func TestPromptStreamsTurn(t *testing.T) {
	var gotIn engine.Input
	var gotID string
	turns := turnFunc(func(_ context.Context, id string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
		gotIn, gotID = in, id
		sink.Event(agent.Event{Kind: agent.EventReasoning, Text: "thinking"})
		sink.Event(agent.Event{Kind: agent.EventText, Text: "Listing."})
		call := llm.ToolCall{ID: "c1", Name: "terminal", Arguments: `{"command":"ls -la"}`}
		sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: call}})
		sink.Event(agent.Event{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Call: call, Result: tool.OK("x"), Content: "a.txt"}})
		bad := llm.ToolCall{ID: "c2", Name: "read_file", Arguments: `{"path":"nope"}`}
		sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: bad}})
		sink.Event(agent.Event{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Call: bad, Result: tool.Fail("not_found", "no"), Content: "no such file"}})
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
	})
	r := newRig(t, turns)
	dir := t.TempDir()
	id := r.newSession(t, dir)
	resp, err := r.prompt(id, "list the files")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
	if gotID != id || gotIn.Workdir != dir || gotIn.Text != "list the files" || gotIn.Source != Source || gotIn.Approval.Prompter == nil {
		t.Errorf("turn got id %q, input %+v; want the session, its cwd and a prompter", gotID, gotIn)
	}
	want := []string{
		"thought: thinking",
		"message: Listing.",
		`tool_call c1 execute in_progress "terminal: ls -la"`,
		`tool_call_update c1 completed "a.txt"`,
		`tool_call c2 read in_progress "read_file: nope"`,
		`tool_call_update c2 failed "no such file"`,
	}
	if got := r.cli.seen(); !slices.Equal(got, want) {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s, err := r.store.Get(context.Background(), id)
	if err != nil || s.Cwd != dir || s.Source != Source {
		t.Errorf("stored session = %+v, %v", s, err)
	}
}

func TestPromptRefusesBadInput(t *testing.T) {
	r := newRig(t, turnFunc(func(context.Context, string, engine.Input, agent.Sink) (*engine.TurnResult, error) {
		t.Error("no turn should run")
		return nil, nil
	}))
	id := r.newSession(t, t.TempDir())
	for _, c := range []struct{ id, text, want string }{
		{"nope", "hi", `session "nope" is not open`},
		{id, "  ", "no text"},
	} {
		_, err := r.prompt(c.id, c.text)
		if err == nil || !strings.Contains(errString(err), c.want) {
			t.Errorf("prompt(%q, %q) = %v; want %q", c.id, c.text, err, c.want)
		}
	}
	_, err := r.conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []acpsdk.McpServer{}})
	if err == nil || !strings.Contains(errString(err), `"relative/dir" is not an absolute path`) {
		t.Errorf("relative cwd: %v", err)
	}
}

// errString is an ACP error with its data, where hermes says what is wrong.
func errString(err error) string {
	if re, ok := err.(*acpsdk.RequestError); ok {
		return re.Error() + " " + anyString(re.Data)
	}
	return err.Error()
}

func anyString(v any) string {
	if m, ok := v.(map[string]any); ok {
		var b strings.Builder
		for k, x := range m {
			b.WriteString(k + "=" + anyString(x) + " ")
		}
		return b.String()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func TestCancelEndsTurnAndSessionGoesOn(t *testing.T) {
	started := make(chan struct{}, 1)
	turns := turnFunc(func(ctx context.Context, id string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
		if in.Text == "again" {
			sink.Event(agent.Event{Kind: agent.EventText, Text: "done"})
			return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
		}
		started <- struct{}{}
		<-ctx.Done()
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopInterrupted}}, ctx.Err()
	})
	r := newRig(t, turns)
	id := r.newSession(t, t.TempDir())
	go func() {
		<-started
		_ = r.conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: acpsdk.SessionId(id)})
	}()
	resp, err := r.prompt(id, "long job")
	if err != nil || resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt = %+v, %v; want cancelled", resp, err)
	}
	resp, err = r.prompt(id, "again")
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("next prompt = %+v, %v", resp, err)
	}
}

func TestLoadReplaysHistory(t *testing.T) {
	r := newRig(t, nil, slash.Command{Name: "usage", Description: "tokens"})
	ctx := context.Background()
	s := &session.Session{Source: Source, Cwd: "/p"}
	if err := r.store.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	msgs := []*session.Message{
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}},
		{Message: llm.Message{Role: llm.RoleAssistant, Reasoning: "hmm", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}}},
		{Message: llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: []llm.Part{{Type: llm.PartText, Text: "A"}}}},
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartText, Text: "It says A."}}}},
	}
	if err := r.store.Append(ctx, s.ID, msgs...); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: acpsdk.SessionId(s.ID), Cwd: "/p", McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: hi",
		"thought: hmm",
		`tool_call c1 read pending "read_file: a"`,
		`tool_call_update c1 completed "A"`,
		"message: It says A.",
	}
	if got := r.cli.seen(); !slices.Equal(got[:len(want)], want) {
		t.Errorf("replay:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	list, err := r.conn.ListSessions(ctx, acpsdk.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || string(list.Sessions[0].SessionId) != s.ID {
		t.Errorf("list = %+v, %v", list, err)
	}
	_, err = r.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: "missing", Cwd: "/p", McpServers: []acpsdk.McpServer{}})
	if err == nil || !strings.Contains(errString(err), `session "missing" does not exist`) {
		t.Errorf("load missing: %v", err)
	}
}

// TestSkillCommands checks that the commands are advertised and that a
// prompt naming one becomes the message that runs it, while other
// prompts, paths among them, go to the model as typed.
func TestSkillCommands(t *testing.T) {
	var texts []string
	turns := turnFunc(func(_ context.Context, id string, in engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
		texts = append(texts, in.Text)
		return &engine.TurnResult{SessionID: id, Result: &agent.Result{Stopped: agent.StopDone}}, nil
	})
	r := newRig(t, turns, slash.Command{Name: "deploy", Args: "[env]", Description: "ship it", Skill: true})
	r.srv.opt.Invoke = func(name, args string) (string, error) {
		if name != "deploy" {
			t.Errorf("invoked %q", name)
		}
		return "run the deploy skill: " + args, nil
	}
	advertised := make(chan string, 1)
	r.cli.onUpdate = func(d string) {
		if strings.HasPrefix(d, "commands:") {
			advertised <- d
		}
	}
	id := r.newSession(t, t.TempDir())
	select {
	case d := <-advertised:
		if d != "commands: deploy" {
			t.Errorf("advertised %q", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no available_commands_update after session/new")
	}
	for _, p := range []string{"/deploy staging", "/etc/hosts says what?", "/unknown thing"} {
		if _, err := r.prompt(id, p); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"run the deploy skill: staging", "/etc/hosts says what?", "/unknown thing"}
	if !slices.Equal(texts, want) {
		t.Errorf("turn texts = %q; want %q", texts, want)
	}
}

// TestServeWaitsForTurns checks that Serve, once the editor goes away,
// cancels the running turn and returns only after it ended, so that the
// engine is not closed under it.
func TestServeWaitsForTurns(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	turns := turnFunc(func(ctx context.Context, id string, _ engine.Input, _ agent.Sink) (*engine.TurnResult, error) {
		close(started)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	})
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := New(Options{Turns: turns, Store: store})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acpsdk.NewClientSideConnection(&client{}, inW, outR)
	served := make(chan struct{})
	go func() {
		_ = srv.Serve(context.Background(), inR, outW)
		close(served)
	}()
	s, err := conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = conn.Prompt(context.Background(), acpsdk.PromptRequest{SessionId: s.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("work")}})
	}()
	<-started
	inW.Close()
	<-served
	select {
	case <-ended:
	default:
		t.Error("Serve returned while a turn was still running")
	}
	outW.Close()
}
