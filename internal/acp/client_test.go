package acp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/slash"
)

// turnFunc is a Turner made of a function.
type turnFunc func(ctx context.Context, id string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error)

func (f turnFunc) Turn(ctx context.Context, id string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
	return f(ctx, id, in, sink)
}

// client is the editor's side: it records the updates as short strings
// and answers permission requests with choose.
type client struct {
	mu      sync.Mutex
	updates []string
	// raw holds the updates as they came, for the fields describe leaves
	// out.
	raw    []acpsdk.SessionUpdate
	asked  []acpsdk.RequestPermissionRequest
	choose func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome
	// onUpdate, when set, hears each update as it arrives.
	onUpdate func(string)
	// buffers, when set, are the editor's open files by path, which
	// fs/read_text_file and fs/write_text_file serve; writes are
	// recorded in wrote.
	buffers map[string]string
	wrote   []string
	// terms, when set, runs the terminals the agent creates.
	terms *terminals
}

func (c *client) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := describe(n.Update)
	c.updates = append(c.updates, d)
	c.raw = append(c.raw, n.Update)
	if c.onUpdate != nil {
		c.onUpdate(d)
	}
	return nil
}

func (c *client) RequestPermission(_ context.Context, r acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	choose := c.choose
	c.mu.Unlock()
	return acpsdk.RequestPermissionResponse{Outcome: choose(r)}, nil
}

func (c *client) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.updates...)
}

func (c *client) ReadTextFile(_ context.Context, r acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.buffers[r.Path]; ok {
		return acpsdk.ReadTextFileResponse{Content: b}, nil
	}
	return acpsdk.ReadTextFileResponse{}, fmt.Errorf("not offered")
}

func (c *client) WriteTextFile(_ context.Context, r acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buffers == nil {
		return acpsdk.WriteTextFileResponse{}, fmt.Errorf("not offered")
	}
	c.buffers[r.Path] = r.Content
	c.wrote = append(c.wrote, r.Path)
	return acpsdk.WriteTextFileResponse{}, nil
}

func (c *client) CreateTerminal(ctx context.Context, r acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	if c.terms == nil {
		return acpsdk.CreateTerminalResponse{}, fmt.Errorf("not offered")
	}
	return c.terms.create(ctx, r)
}

func (c *client) KillTerminal(ctx context.Context, r acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	if c.terms == nil {
		return acpsdk.KillTerminalResponse{}, fmt.Errorf("not offered")
	}
	return c.terms.kill(ctx, r)
}

func (c *client) TerminalOutput(ctx context.Context, r acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	if c.terms == nil {
		return acpsdk.TerminalOutputResponse{}, fmt.Errorf("not offered")
	}
	return c.terms.output(ctx, r)
}

func (c *client) ReleaseTerminal(ctx context.Context, r acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	if c.terms == nil {
		return acpsdk.ReleaseTerminalResponse{}, fmt.Errorf("not offered")
	}
	return c.terms.release(ctx, r)
}

func (c *client) WaitForTerminalExit(ctx context.Context, r acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	if c.terms == nil {
		return acpsdk.WaitForTerminalExitResponse{}, fmt.Errorf("not offered")
	}
	return c.terms.wait(ctx, r)
}

// describe is an update as a short string for assertions.
func describe(u acpsdk.SessionUpdate) string {
	text := func(b acpsdk.ContentBlock) string {
		if b.Text != nil {
			return b.Text.Text
		}
		return "?"
	}
	contents := func(cs []acpsdk.ToolCallContent) string {
		var parts []string
		for _, c := range cs {
			if c.Content != nil {
				parts = append(parts, text(c.Content.Content))
			}
		}
		return strings.Join(parts, "|")
	}
	switch {
	case u.UserMessageChunk != nil:
		return "user: " + text(u.UserMessageChunk.Content)
	case u.AgentMessageChunk != nil:
		return "message: " + text(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		return "thought: " + text(u.AgentThoughtChunk.Content)
	case u.ToolCall != nil:
		t := u.ToolCall
		return fmt.Sprintf("tool_call %s %s %s %q", t.ToolCallId, t.Kind, t.Status, t.Title)
	case u.ToolCallUpdate != nil:
		t := u.ToolCallUpdate
		status := ""
		if t.Status != nil {
			status = string(*t.Status)
		}
		return fmt.Sprintf("tool_call_update %s %s %q", t.ToolCallId, status, contents(t.Content))
	case u.AvailableCommandsUpdate != nil:
		var names []string
		for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
			names = append(names, c.Name)
		}
		return "commands: " + strings.Join(names, " ")
	case u.CurrentModeUpdate != nil:
		return "mode: " + string(u.CurrentModeUpdate.CurrentModeId)
	case u.UsageUpdate != nil:
		d := fmt.Sprintf("usage: %d/%d", u.UsageUpdate.Used, u.UsageUpdate.Size)
		if c := u.UsageUpdate.Cost; c != nil {
			d += fmt.Sprintf(" %.4f %s", c.Amount, c.Currency)
		}
		return d
	}
	return "other"
}

// rig is a Server connected to a client in-process.
type rig struct {
	srv   *Server
	cli   *client
	conn  *acpsdk.ClientSideConnection
	store *sqlite.Store
}

// newRig serves turns to an in-process client.
func newRig(t *testing.T, turns Turner, cmds ...slash.Command) *rig {
	t.Helper()
	store := openStore(t)
	return serveRig(t, New(Options{Turns: turns, Store: store, Commands: cmds, Version: "test"}), store)
}

// openStore opens a fresh session store, closed when the test ends.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// serveRig connects srv, whose sessions are in store, to an in-process
// client that dismisses permission requests until told otherwise.
func serveRig(t *testing.T, srv *Server, store *sqlite.Store) *rig {
	t.Helper()
	toSrvR, toSrvW := io.Pipe()
	toCliR, toCliW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ctx, toSrvR, toCliW)
	}()
	cli := &client{choose: func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		return acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}
	}}
	conn := acpsdk.NewClientSideConnection(cli, toSrvW, toCliR)
	t.Cleanup(func() {
		cancel()
		toSrvW.Close()
		toCliW.Close()
		<-done
	})
	return &rig{srv: srv, cli: cli, conn: conn, store: store}
}

// newSession initializes and opens a session in dir.
func (r *rig) newSession(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.SessionId)
}

// prompt sends text to session id.
func (r *rig) prompt(id, text string) (acpsdk.PromptResponse, error) {
	return r.conn.Prompt(context.Background(), acpsdk.PromptRequest{
		SessionId: acpsdk.SessionId(id), Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)},
	})
}
