package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/tool"
)

// mcpServerEnv makes the test binary an MCP stdio server (TestMain).
const mcpServerEnv = "HERMES_ACP_TEST_MCP_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(mcpServerEnv) == "1" {
		serveMCP()
		return
	}
	os.Exit(m.Run())
}

// serveMCP is an MCP server over stdio with one tool, greet, which
// answers with the GREETING its environment holds. It writes its process
// id to PIDFILE, so a test can see that it is gone.
func serveMCP() {
	if f := os.Getenv("PIDFILE"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "editor-test", Version: "1.0"}, nil)
	srv.AddTool(&sdk.Tool{Name: "greet", Description: "Greets.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "greeting: " + os.Getenv("GREETING")}}}, nil
		})
	_ = srv.Run(context.Background(), &sdk.StdioTransport{})
}

// stdioServer is the test binary as an editor's MCP server named name,
// recording its process id in pidfile.
func stdioServer(name, pidfile string) acpsdk.McpServer {
	return acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{
		Name: name, Command: os.Args[0], Args: []string{"-test.run=^$"},
		Env: []acpsdk.EnvVariable{{Name: mcpServerEnv, Value: "1"}, {Name: "GREETING", Value: "hunter2-editor-secret"}, {Name: "PIDFILE", Value: pidfile}},
	}}
}

// syncLog is a log sink tests read while the server writes.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// engineRig is a Server over a real engine whose model is an llmtest
// server, with a client in-process; end stops the connection as an editor
// that quits does.
type engineRig struct {
	srv  *Server
	cli  *client
	conn *acpsdk.ClientSideConnection
	llm  *llmtest.Server
	log  *syncLog
	end  func()
}

func newMCPRig(t *testing.T) *engineRig {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	model := llmtest.New(t)
	e := engine.New(engine.Options{
		Store:  store,
		Models: oneModel{engine.Model{Provider: openai.NewChat(llm.Endpoint{Name: "test", BaseURL: model.URL() + "/v1", APIKey: "k", Model: "m"}), Name: "m"}},
		Tools:  engine.Tools{Registry: tool.NewRegistry()},
		Prompt: engine.PromptSources{Home: t.TempDir()},
	})
	t.Cleanup(e.Close)
	log := &syncLog{}
	srv := New(Options{Turns: e, Store: store, Version: "test",
		Logger:   slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Reserved: func(toolset string) bool { return toolset == "mcp-configured" }})
	toSrvR, toSrvW := io.Pipe()
	toCliR, toCliW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(context.Background(), toSrvR, toCliW)
	}()
	cli := &client{choose: func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return selected("deny") }}
	conn := acpsdk.NewClientSideConnection(cli, toSrvW, toCliR)
	var once sync.Once
	end := func() {
		once.Do(func() {
			toSrvW.Close()
			<-done
			toCliW.Close()
		})
	}
	t.Cleanup(end)
	return &engineRig{srv: srv, cli: cli, conn: conn, llm: model, log: log, end: end}
}

// gone waits until the process whose id is in pidfile has exited.
func gone(t *testing.T, pidfile string) {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the MCP server never started: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the MCP server (pid %d) still runs: kill 0 = %v", pid, err)
	}
}

// TestEditorMCPServer checks that a stdio MCP server passed in
// session/new is connected for that session: the model is offered its
// tool as mcp__NAME__TOOL and calls it, another session is not offered
// it, its environment values are not logged, and its process is gone
// once the session is closed or the editor goes away.
func TestEditorMCPServer(t *testing.T) {
	r := newMCPRig(t)
	ctx := context.Background()
	dir := t.TempDir()
	pid1, pid2, pid3 := filepath.Join(dir, "one.pid"), filepath.Join(dir, "two.pid"), filepath.Join(dir, "three.pid")
	if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	withMCP, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{stdioServer("editor", pid1)}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	r.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "mcp__editor__greet", Arguments: `{}`}}},
		llmtest.Reply{Text: "Greeted."},
		llmtest.Reply{Text: "No tools here."},
	)
	prompt := func(id acpsdk.SessionId, text string) {
		t.Helper()
		resp, err := r.conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
		if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
			t.Fatalf("prompt %q = %+v, %v", text, resp, err)
		}
	}
	prompt(withMCP.SessionId, "greet me")
	prompt(plain.SessionId, "greet me too")
	reqs := r.llm.Requests()
	offered := func(req llmtest.Request) (names []string) {
		for _, s := range req.Tools {
			names = append(names, s.Name)
		}
		return names
	}
	if !slices.Contains(offered(reqs[0]), "mcp__editor__greet") {
		t.Errorf("the session with the server was offered %v", offered(reqs[0]))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Role != llm.RoleTool || !strings.Contains(last.Text(), "greeting: hunter2-editor-secret") {
		t.Errorf("tool result = %+v", last)
	}
	if slices.Contains(offered(reqs[2]), "mcp__editor__greet") {
		t.Errorf("another session was offered the editor's tool: %v", offered(reqs[2]))
	}
	if !slices.Contains(r.cli.seen(), `tool_call c1 other in_progress "mcp__editor__greet"`) {
		t.Errorf("updates = %q", r.cli.seen())
	}

	if _, err := r.conn.CloseSession(ctx, acpsdk.CloseSessionRequest{SessionId: withMCP.SessionId}); err != nil {
		t.Fatal(err)
	}
	gone(t, pid1)

	// Loading the session again connects the servers passed with the load.
	if _, err := r.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: withMCP.SessionId, Cwd: dir, McpServers: []acpsdk.McpServer{stdioServer("editor", pid3)}}); err != nil {
		t.Fatal(err)
	}
	r.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c2", Name: "mcp__editor__greet", Arguments: `{}`}}},
		llmtest.Reply{Text: "Greeted again."},
	)
	prompt(withMCP.SessionId, "greet me again")
	reqs = r.llm.Requests()
	if last := reqs[4].Messages[len(reqs[4].Messages)-1]; !strings.Contains(last.Text(), "greeting: hunter2-editor-secret") {
		t.Errorf("after load, tool result = %+v", last)
	}

	if _, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{stdioServer("again", pid2)}}); err != nil {
		t.Fatal(err)
	}
	r.end()
	gone(t, pid2)
	gone(t, pid3)
	if log := r.log.String(); strings.Contains(log, "hunter2-editor-secret") || !strings.Contains(log, "mcp_servers=1") {
		t.Errorf("log:\n%s", log)
	}
}

// TestEditorMCPServerFails checks that a server that cannot start leaves
// a working session and a message saying which server failed and why,
// without a hung session/new.
func TestEditorMCPServerFails(t *testing.T) {
	r := newMCPRig(t)
	ctx := context.Background()
	said := make(chan string, 4)
	r.cli.onUpdate = func(d string) {
		if strings.HasPrefix(d, "message: ") {
			said <- d
		}
	}
	missing := acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{Name: "broken", Command: filepath.Join(t.TempDir(), "no-such-server"), Args: []string{}, Env: []acpsdk.EnvVariable{}}}
	start := time.Now()
	resp, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{missing}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("session/new took %v", d)
	}
	select {
	case m := <-said:
		if !strings.Contains(m, "MCP server broken (") || !strings.Contains(m, "no-such-server") {
			t.Errorf("message = %q", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no message about the server that failed")
	}
	r.llm.Enqueue(llmtest.Reply{Text: "Still here."})
	p, err := r.conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: resp.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("hi")}})
	if err != nil || p.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("prompt after a failed server = %+v, %v", p, err)
	}
}

// TestEditorMCPServerRefused checks the servers refused before anything
// starts, each error naming the field and the value.
func TestEditorMCPServerRefused(t *testing.T) {
	r := newMCPRig(t)
	ctx := context.Background()
	ok := stdioServer("fine", filepath.Join(t.TempDir(), "pid"))
	for _, c := range []struct {
		servers []acpsdk.McpServer
		want    string
	}{
		{[]acpsdk.McpServer{{Sse: &acpsdk.McpServerSseInline{Name: "s", Type: "sse", Url: "http://127.0.0.1:1/sse", Headers: []acpsdk.HttpHeader{}}}},
			`mcpServers[0].type "sse" is not accepted`},
		{[]acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{Name: " ", Command: "x", Args: []string{}, Env: []acpsdk.EnvVariable{}}}},
			`mcpServers[0].name "" is not accepted: the name is empty`},
		{[]acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{Name: "x", Args: []string{}, Env: []acpsdk.EnvVariable{}}}},
			`mcpServers[0].command "" is not accepted`},
		{[]acpsdk.McpServer{ok, ok}, `mcpServers[1].name "fine" is not accepted: another server of this session has that name`},
		{[]acpsdk.McpServer{stdioServer("configured", "")}, `mcpServers[0].name "configured" is not accepted: an MCP server of hermes's config.yaml has that name`},
		{[]acpsdk.McpServer{{Http: &acpsdk.McpServerHttpInline{Name: "web", Type: "http", Url: "ftp://user:pw@example.com/?token=t0k", Headers: []acpsdk.HttpHeader{}}}},
			`mcpServers[0].url: "ftp://example.com/?…" is not an http:// or https:// URL`},
	} {
		_, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: c.servers})
		if err == nil || !strings.Contains(errString(err), c.want) {
			t.Errorf("got %v; want %q", err, c.want)
		}
	}
}

// TestInitializeAnnouncesMCP checks that initialize offers what hermes's
// MCP client connects: stdio (always) and streamable HTTP, not SSE.
func TestInitializeAnnouncesMCP(t *testing.T) {
	r := newRig(t, nil)
	got, err := r.conn.Initialize(context.Background(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.AgentCapabilities.McpCapabilities; !c.Http || c.Sse || c.Acp {
		t.Errorf("mcpCapabilities = %+v; want http only", c)
	}
}
