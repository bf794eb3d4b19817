// Package mcpserver exposes hermes's tools to other agents over the Model
// Context Protocol: Claude Desktop, Cursor or any MCP client can list the
// tools of a registry and call them, over stdio or streamable HTTP.
//
// Every call goes through the same tool.Dispatcher the agent loop uses, so
// argument validation and coercion, timeouts, retries, output caps,
// redaction and the approval policy apply to an MCP client exactly as they
// apply to hermes's own model. Tool failures reach the client as results
// with isError set, the MCP convention, so the calling model can read them
// and correct itself; only an unknown tool name is a protocol error.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// Defaults of Options fields left zero.
const (
	// DefaultPollInterval is how often Watch compares the registry with
	// the tools the clients were offered.
	DefaultPollInterval = 2 * time.Second
	// DefaultSessionTimeout closes an HTTP session that sent nothing for
	// this long: streamable HTTP clients often go away without saying so.
	DefaultSessionTimeout = 30 * time.Minute
)

// sessionPrefix starts the hermes session ID of every MCP client session,
// so logs and approvals tell MCP calls apart from the model's own.
const sessionPrefix = "mcp-"

// Options configure a Server.
type Options struct {
	// Registry holds the tools to expose, already narrowed with
	// Registry.Select: every offered tool is listed.
	Registry *tool.Registry
	// Dispatcher runs the calls; its Registry must be Registry. Nil means
	// a Dispatcher with default limits over Registry.
	Dispatcher *tool.Dispatcher
	// Approver returns the approver for one client session's risky
	// commands. It must not ask a person (no one is at hand for an MCP
	// call), so dangerous commands are denied by hermes's policy. Nil
	// means tools get no approver and treat dangerous actions as denied.
	Approver func(sessionID string) tool.Approver
	// OnSessionEnd, when set, hears that a client session ended (for
	// example to forget its approvals with safety.Policy.EndSession).
	OnSessionEnd func(sessionID string)
	// Workdir is the directory tools work in.
	Workdir string
	// Name and Version identify the server to clients; Name defaults to
	// "hermes".
	Name, Version string
	// Token, when set, is the bearer token HTTP clients must send in
	// their Authorization header; requests without it get 401.
	Token string
	// PollInterval is how often Watch looks for tools that came or went;
	// zero means DefaultPollInterval.
	PollInterval time.Duration
	// SessionTimeout closes idle HTTP sessions; zero means
	// DefaultSessionTimeout, a negative value keeps them forever.
	SessionTimeout time.Duration
	// Logger gets the server's logs; nil discards them. It must not write
	// to stdout when serving stdio.
	Logger *slog.Logger
}

// Server serves the tools of one registry to MCP clients. It is safe for
// concurrent use; one Server may serve stdio and HTTP clients at once.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server
	// calls numbers calls for their call IDs.
	calls atomic.Uint64

	// syncMu serializes syncs; offered holds the fingerprint of each tool
	// the SDK server lists, by name.
	syncMu  sync.Mutex
	offered map[string]string

	// ids holds the hermes session ID of sessions whose transport has no
	// session ID of its own (stdio).
	ids sync.Map // *mcp.ServerSession → string
}

// New returns a server for the tools of opts.Registry, listing them
// already; it starts nothing until ServeStdio, HTTPHandler or Watch.
func New(opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "hermes"
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Dispatcher == nil {
		opts.Dispatcher = &tool.Dispatcher{Registry: opts.Registry, Logger: log}
	}
	s := &Server{opts: opts, log: log, offered: map[string]string{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Logger:             quiet(log),
		HasTools:           true,
		Capabilities:       &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		InitializedHandler: s.initialized,
	})
	s.mcp.AddReceivingMiddleware(s.syncBeforeTools)
	s.Sync()
	return s
}

// initialized follows a session from the client's initialized
// notification to its end, for the log and OnSessionEnd.
func (s *Server) initialized(_ context.Context, req *mcp.InitializedRequest) {
	ss := req.Session
	id := s.sessionID(ss)
	client := ""
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		client = p.ClientInfo.Name
	}
	s.log.Info("mcp: client session started", "session_id", id, "client", client)
	go func() {
		_ = ss.Wait()
		s.ids.Delete(ss)
		s.log.Info("mcp: client session ended", "session_id", id)
		if s.opts.OnSessionEnd != nil {
			s.opts.OnSessionEnd(id)
		}
	}()
}

// sessionID returns the hermes session ID of an MCP session: "mcp-" and
// the transport's session ID, or a random one kept for the life of a
// session whose transport has none (stdio serves one client per process,
// but each connection is still its own session).
func (s *Server) sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return sessionPrefix + randomID()
	}
	if id := ss.ID(); id != "" {
		return sessionPrefix + id
	}
	if id, ok := s.ids.Load(ss); ok {
		return id.(string)
	}
	id, _ := s.ids.LoadOrStore(ss, sessionPrefix+"stdio-"+randomID())
	return id.(string)
}

// randomID returns 16 random hex digits.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// handler returns the MCP handler of the tool called name: one call
// through the dispatcher, with the client session's invocation.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sid := s.sessionID(req.Session)
		inv := tool.Invocation{SessionID: sid, Workdir: s.opts.Workdir}
		if s.opts.Approver != nil {
			inv.Approver = s.opts.Approver(sid)
		}
		args := "{}"
		if req.Params != nil && len(req.Params.Arguments) > 0 {
			args = string(req.Params.Arguments)
		}
		call := llm.ToolCall{ID: "mcp_" + strconv.FormatUint(s.calls.Add(1), 10), Name: name, Arguments: args}
		start := time.Now()
		outs := s.opts.Dispatcher.Run(tool.WithInvocation(ctx, inv), []llm.ToolCall{call}, nil)
		out := outs[0]
		s.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "mcp: tool call",
			slog.String("tool", out.Name),
			slog.String("session_id", sid),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("status", string(out.Result.Status)),
			slog.String("error_code", string(out.Result.ErrorCode)))
		return toResult(out), nil
	}
}

// quiet returns log without its Info and Debug lines, for the SDK: it
// logs every connection step at Info, and the Server logs what matters of
// a session itself, with hermes's field names.
func quiet(log *slog.Logger) *slog.Logger {
	return slog.New(warnOnly{log.Handler()})
}

// warnOnly passes on records of level Warn and above.
type warnOnly struct{ slog.Handler }

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnOnly{w.Handler.WithAttrs(attrs)}
}

func (w warnOnly) WithGroup(name string) slog.Handler { return warnOnly{w.Handler.WithGroup(name)} }
