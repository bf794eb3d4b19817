// Package acp serves hermes to editors over the Agent Client Protocol on
// stdio: an editor (Zed, a JetBrains IDE, any ACP client) starts
// "hermes acp", opens sessions in its project directory and sends
// prompts; hermes streams the turn back as session updates and asks the
// editor's user before a dangerous command runs. It is a front over the
// engine like the terminal chat: it renders events and says who approves.
package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/slash"
)

// Source is the session source of sessions opened from an editor.
const Source = "acp"

// Turner runs turns; *engine.Engine is one.
type Turner interface {
	Turn(ctx context.Context, sessionID string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error)
}

// Options wire a Server. Turns and Store are required.
type Options struct {
	Turns Turner
	// Store holds the sessions: session/new creates one there so that the
	// editor's session id is hermes's, and session/load replays it.
	Store session.Store
	// Commands are the slash commands advertised to the editor; a prompt
	// that starts with one of them is turned into a message by Invoke.
	Commands []slash.Command
	// Invoke returns the user message that runs the command name with
	// its arguments (a skill's text and the instruction).
	Invoke func(name, args string) (string, error)
	// Yolo runs dangerous commands without asking (--yolo); hardline
	// commands and approvals.deny still never run. With Approvals it sets
	// the mode sessions start in (DefaultMode); the editor can switch it.
	Yolo bool
	// Approvals is approvals.mode of config.yaml.
	Approvals safety.Mode
	// Reserved reports whether an MCP toolset is hermes's own (a server
	// of config.yaml), which an editor's server may not take; nil
	// reserves none.
	Reserved func(toolset string) bool
	// Models are the models a session may pick, the main one first; the
	// others are called by name on the configured provider.
	Models []string
	// Version is hermes's version, told in initialize.
	Version string
	// Logger gets the server's lines; it must not write to stdout, which
	// is the protocol.
	Logger *slog.Logger
}

// Server is one editor's connection. Its methods implement the agent side
// of ACP; the SDK calls them.
type Server struct {
	opt  Options
	conn *acpsdk.AgentSideConnection

	// turns counts the running turns, which Serve waits for.
	turns sync.WaitGroup

	mu sync.Mutex
	// sessions are the sessions opened or loaded on this connection.
	sessions map[string]*state
	// closing is set when Serve ends; no turn starts after it.
	closing bool
	// clientFS is what the editor said in initialize it reads and writes
	// for hermes.
	clientFS acpsdk.FileSystemCapabilities
	// clientTerminal is set when the editor said in initialize that it
	// runs commands in terminals of its own for hermes.
	clientTerminal bool
}

// state is one open session.
type state struct {
	workdir string
	// mode is the session's approval mode (ModeAsk...); model the model
	// picked for it, empty for the main one.
	mode, model string
	// mcp is the MCP servers the editor passed for the session; nil when
	// none.
	mcp *sessionMCP
	// cancel ends the running turn; nil when none runs.
	cancel context.CancelFunc
	// shell keeps what the session's commands in the editor's terminals
	// leave for the next; nil until the first turn with them.
	shell *editorShell
}

// New returns a Server; Serve connects it.
func New(opt Options) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{opt: opt, sessions: make(map[string]*state)}
}

// Serve speaks ACP on r and w until the peer closes r or ctx ends; then it
// cancels the running turns and waits for them to record what they did,
// so that the caller may close the engine.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	// The connection reads as soon as it is made; nothing is read until
	// s.conn is set, which the handlers use, and its logger, which its
	// reader uses.
	set := make(chan struct{})
	s.conn = acpsdk.NewAgentSideConnection(s, w, afterReader{r, set})
	s.conn.SetLogger(s.opt.Logger)
	close(set)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.cancelAll()
	s.turns.Wait()
	s.closeAllMCP()
	s.removeShells()
	return nil
}

// cancelAll ends every running turn and lets no new one start.
func (s *Server) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for _, st := range s.sessions {
		if st.cancel != nil {
			st.cancel()
		}
	}
}

// Initialize says what hermes supports: loading sessions, listing them,
// text and embedded context in prompts, and no authentication (the model
// keys are hermes's own configuration).
func (s *Server) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.rememberClient(p.ClientCapabilities)
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentInfo:       &acpsdk.Implementation{Name: "hermes", Version: s.opt.Version},
		AuthMethods:     []acpsdk.AuthMethod{},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:         true,
			McpCapabilities:     acpsdk.McpCapabilities{Http: true},
			PromptCapabilities:  acpsdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: acpsdk.SessionCapabilities{List: &acpsdk.SessionListCapabilities{}},
		},
	}, nil
}

// Authenticate accepts nothing: hermes offers no authentication methods.
func (s *Server) Authenticate(_ context.Context, p acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, acpsdk.NewInvalidParams(map[string]any{
		"methodId": p.MethodId, "error": "hermes offers no authentication methods; initialize lists none, so skip authenticate",
	})
}

// NewSession creates a hermes session working in cwd.
func (s *Server) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	servers, err := s.mcpConfigs(p.McpServers)
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	sess := &session.Session{Source: Source, Cwd: p.Cwd}
	if err := s.opt.Store.Create(ctx, sess); err != nil {
		return acpsdk.NewSessionResponse{}, fmt.Errorf("creating a session: %w", err)
	}
	m, failed := s.connectMCP(ctx, servers)
	st := s.open(sess.ID, p.Cwd, m)
	s.opt.Logger.Info("acp session opened", "session_id", sess.ID, "cwd", p.Cwd, "mcp_servers", len(servers))
	s.advertise(sess.ID)
	s.reportMCP(sess.ID, failed)
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(sess.ID),
		Modes: modeState(st.mode), Models: s.modelState(&st), ConfigOptions: s.configOptions(sess.ID)}, nil
}

// checkCwd requires the absolute directory ACP says cwd is.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acpsdk.NewInvalidParams(map[string]any{
			"cwd": cwd, "error": fmt.Sprintf("cwd %q is not an absolute path; send the project's absolute directory", cwd),
		})
	}
	return nil
}

// open records a session as open on this connection with the MCP
// servers m, in the default mode unless it was open already (whose
// servers m replaces), and returns its state.
func (s *Server) open(id, workdir string, m *sessionMCP) state {
	s.mu.Lock()
	st, ok := s.sessions[id]
	if !ok {
		st = &state{mode: DefaultMode(s.opt.Approvals, s.opt.Yolo)}
		s.sessions[id] = st
	}
	old := st.mcp
	st.workdir, st.mcp = workdir, m
	if s.closing {
		// Serve has closed the servers of every session already.
		old, st.mcp = m, nil
	}
	out := *st
	s.mu.Unlock()
	old.close()
	return out
}

// Cancel ends the session's running turn, if any. The turn records what
// it did so far and Prompt answers "cancelled".
func (s *Server) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[string(p.SessionId)]; ok && st.cancel != nil {
		st.cancel()
	}
	return nil
}

// afterReader reads r once ready is closed.
type afterReader struct {
	r     io.Reader
	ready <-chan struct{}
}

func (a afterReader) Read(p []byte) (int, error) {
	<-a.ready
	return a.r.Read(p)
}
