package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/mcpserver"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// defaultServeToolsets are what "hermes mcp serve" exposes when
// mcp_serve.toolsets is empty, besides every declared tool: nothing that
// runs shell commands, since the MCP client's model is not one the user
// is watching.
var defaultServeToolsets = []string{"file", "web"}

func newMCPServeCmd(a *cli) *cobra.Command {
	var addr, tokenEnv string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve hermes's tools to MCP clients (Claude Desktop, Cursor, other agents)",
		Long: `Serve hermes's tools over MCP: on stdin/stdout by default (what Claude
Desktop and Cursor start), or over streamable HTTP at http://ADDR/mcp with
--http ADDR.

Exposed are the toolsets in mcp_serve.toolsets, by default every declared
tool ($HERMES_HOME/tools/*.yaml and tools: in config.yaml) and the file and
web tools; terminal only when named there. Calls go through hermes's
validation, timeouts and guards; nobody can approve a dangerous command
from an MCP client, so approvals.non_interactive decides (deny by default).
Declared tools files are reloaded when they change.

Over HTTP, clients must send "Authorization: Bearer <token>" when the
variable named by --token-env is set (in the environment or .env); it must
be set to serve on an address other than loopback.

Claude Desktop (claude_desktop_config.json):
  {"mcpServers": {"hermes": {"command": "hermes", "args": ["mcp", "serve"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			token, _ := l.Env(tokenEnv)
			if addr != "" && token == "" && !netguard.Loopback(addr) {
				return fmt.Errorf("--http %s: serving beyond this machine needs a token; set %s in %s or the environment (or listen on 127.0.0.1)", addr, tokenEnv, l.Paths.EnvFile)
			}
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			box, err := h.Engine.Toolbox(serveToolsets(l.Config, h.Tools))
			if err != nil {
				return fmt.Errorf("config.yaml: mcp_serve.toolsets: %w", err)
			}
			cwd, _ := os.Getwd()
			srv := mcpserver.New(mcpserver.Options{
				Registry: box.Registry, Dispatcher: box.Dispatcher, Workdir: cwd, Version: version, Token: token, Logger: h.Log,
				Approver:     func(id string) tool.Approver { return h.Policy.For(id, safety.Asker{}) },
				OnSessionEnd: h.Policy.EndSession,
			})
			defer srv.Close()
			ctx := cmd.Context()
			go h.Tools.Watch(ctx)
			if addr == "" {
				return srv.ServeStdio(ctx)
			}
			return serveMCPHTTP(ctx, cmd, srv, addr)
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "HERMES_MCP_TOKEN", "variable holding the bearer token HTTP clients must send")
	return cmd
}

// serveToolsets is mcp_serve.toolsets, or the default: the file and web
// toolsets and every toolset a declared tool belongs to.
func serveToolsets(c config.Config, b *app.Tools) []string {
	if len(c.MCPServe.Toolsets) > 0 {
		return c.MCPServe.Toolsets
	}
	sets := slices.Clone(defaultServeToolsets)
	for _, ts := range b.DeclaredToolsets() {
		if !slices.Contains(sets, ts) {
			sets = append(sets, ts)
		}
	}
	return sets
}

// serveMCPHTTP serves /mcp on addr until ctx ends.
func serveMCPHTTP(ctx context.Context, cmd *cobra.Command, srv *mcpserver.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "hermes: serving MCP at http://%s/mcp\n", ln.Addr())
	return srv.ServeHTTP(ctx, ln)
}
