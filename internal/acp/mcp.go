package acp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/mcp"
)

// sessionMCP is the MCP servers an editor passed with a session,
// connected for that session alone: their tools are offered to its turns
// (engine.Input.Tools) and to no other session's.
type sessionMCP struct {
	manager *mcp.Manager
	tools   *tool.Registry
}

// close disconnects the servers; a stdio server's process exits or is
// killed. It may wait a few seconds for a process to exit.
func (m *sessionMCP) close() {
	if m != nil {
		_ = m.manager.Close()
	}
}

// mcpConfigs maps the servers an editor passed onto the MCP client's
// configuration. A server hermes cannot connect (SSE, ACP), one without a
// name or a command or URL, a name given twice and a name a configured
// MCP server already has are refused, naming the field and the value.
func (s *Server) mcpConfigs(servers []acpsdk.McpServer) (map[string]mcp.ServerConfig, error) {
	out := make(map[string]mcp.ServerConfig, len(servers))
	for i, srv := range servers {
		field := fmt.Sprintf("mcpServers[%d]", i)
		var name string
		cfg := mcp.ServerConfig{Enabled: true}
		switch {
		case srv.Stdio != nil:
			name, cfg.Command, cfg.Args = srv.Stdio.Name, srv.Stdio.Command, srv.Stdio.Args
			if cfg.Command == "" {
				return nil, badServer(field+".command", "", "the command is empty; give the program that runs the server")
			}
			if len(srv.Stdio.Env) > 0 {
				cfg.Env = make(map[string]string, len(srv.Stdio.Env))
				for _, e := range srv.Stdio.Env {
					cfg.Env[e.Name] = e.Value
				}
			}
		case srv.Http != nil:
			name, cfg.URL = srv.Http.Name, srv.Http.Url
			if err := mcp.CheckURL(cfg.URL); err != nil {
				return nil, acpsdk.NewInvalidParams(map[string]any{"field": field + ".url", "error": field + ".url: " + err.Error()})
			}
			if len(srv.Http.Headers) > 0 {
				cfg.Headers = make(map[string]string, len(srv.Http.Headers))
				for _, h := range srv.Http.Headers {
					cfg.Headers[h.Name] = h.Value
				}
			}
		case srv.Sse != nil:
			return nil, badServer(field+".type", "sse", "hermes connects MCP servers over stdio and streamable HTTP (type http), not SSE; initialize says so in mcpCapabilities")
		default:
			return nil, badServer(field+".type", "acp", "hermes connects MCP servers over stdio and streamable HTTP (type http) only")
		}
		name = strings.TrimSpace(name)
		switch _, dup := out[name]; {
		case name == "":
			return nil, badServer(field+".name", name, "the name is empty; name the server, as its tools are called mcp__NAME__TOOL")
		case dup:
			return nil, badServer(field+".name", name, "another server of this session has that name; give each its own")
		case s.opt.Reserved != nil && s.opt.Reserved(mcp.Toolset(name)):
			return nil, badServer(field+".name", name, "an MCP server of hermes's config.yaml has that name; rename the editor's server")
		}
		out[name] = cfg
	}
	return out, nil
}

// badServer is the error for one field of an MCP server the editor
// passed.
func badServer(field, value, why string) error {
	return acpsdk.NewInvalidParams(map[string]any{field: value, "error": fmt.Sprintf("%s %q is not accepted: %s", field, value, why)})
}

// connectMCP connects the servers of one session and waits until each
// has connected or failed its first attempt (at most the connect
// timeout). A server that failed keeps being retried in the background;
// failed says which ones failed and why, for the editor's user.
func (s *Server) connectMCP(ctx context.Context, servers map[string]mcp.ServerConfig) (m *sessionMCP, failed []string) {
	if len(servers) == 0 {
		return nil, nil
	}
	reg := tool.NewRegistry()
	manager := mcp.NewManager(mcp.Options{
		Servers: servers, Registry: reg, Logger: s.opt.Logger,
		ClientName: "hermes", ClientVersion: s.opt.Version,
	})
	ctx, cancel := context.WithTimeout(ctx, mcp.DefaultConnectTimeout+mcpGrace)
	defer cancel()
	_ = manager.Start(ctx)
	for _, st := range manager.Status() {
		if st.State != mcp.StateConnected {
			failed = append(failed, fmt.Sprintf("%s (%s)", st.Name, cmp.Or(st.LastError, "not connected in time")))
		}
	}
	return &sessionMCP{manager: manager, tools: reg}, failed
}

// mcpGrace is added to the connect timeout so that the servers' own
// timeouts, which say why, end the wait first.
const mcpGrace = time.Second

// tools are the session's own tools for its turns; nil when the editor
// passed no MCP server.
func (st state) tools() *tool.Registry {
	if st.mcp == nil {
		return nil
	}
	return st.mcp.tools
}

// reportMCP tells the editor's user which servers did not start, after
// the response that gave the editor the session.
func (s *Server) reportMCP(id string, failed []string) {
	if len(failed) == 0 {
		return
	}
	u := newUpdater(s.conn, id, s.opt.Logger)
	text := fmt.Sprintf("hermes: MCP server %s did not start; its tools are missing from this session until it does (hermes keeps trying). Check its command, arguments and environment in the editor's settings.", strings.Join(failed, ", "))
	go u.send(acpsdk.UpdateAgentMessageText(text))
}

// closeAllMCP disconnects the servers of every session; Serve calls it
// when the editor is gone.
func (s *Server) closeAllMCP() {
	s.mu.Lock()
	var all []*sessionMCP
	for _, st := range s.sessions {
		if st.mcp != nil {
			all = append(all, st.mcp)
			st.mcp = nil
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range all {
		wg.Go(m.close)
	}
	wg.Wait()
}
