package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/mcp"
)

// mcpServers maps config.yaml's mcp_servers onto the MCP client's
// configuration.
func mcpServers(c config.Config) map[string]mcp.ServerConfig {
	out := make(map[string]mcp.ServerConfig, len(c.MCPServers))
	for name, s := range c.MCPServers {
		out[name] = mcp.ServerConfig{
			Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers,
			Timeout: s.Timeout, ConnectTimeout: s.ConnectTimeout,
			Include: s.Tools.Include, Exclude: s.Tools.Exclude,
			SupportsParallelToolCalls: s.SupportsParallelToolCalls,
			Enabled:                   s.Enabled.Or(true),
		}
	}
	return out
}

// newMCP returns the manager of the configured MCP servers, with their
// toolsets announced to reg so that selecting one works before (or
// without) its server being up. It connects nothing yet.
func newMCP(l *config.Loaded, reg *tool.Registry, log *slog.Logger) *mcp.Manager {
	servers := mcpServers(l.Config)
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		reg.Expect(mcp.Toolset(name))
	}
	return mcp.NewManager(mcp.Options{
		Servers: servers, Registry: reg, Logger: log,
		ClientName: "hermes", ClientVersion: version,
	})
}

// startMCP connects the configured servers in parallel. It waits at most
// for the slowest server's connect timeout (and never more than a minute):
// a server that is not up by then keeps connecting in the background, and
// its tools appear when it is.
func startMCP(ctx context.Context, m *mcp.Manager, c config.Config) {
	if len(c.MCPServers) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, mcpWait(c))
	defer cancel()
	_ = m.Start(ctx)
}

// mcpWait is how long starting the servers of c may take: the slowest
// server's connect timeout, and never more than a minute.
func mcpWait(c config.Config) time.Duration {
	wait := mcp.DefaultConnectTimeout
	for _, s := range c.MCPServers {
		wait = max(wait, s.ConnectTimeout)
	}
	return min(wait+time.Second, time.Minute)
}

// reloadMCP answers /reload-mcp: it reads mcp_servers from config.yaml
// again, reconnects the servers that were added or changed, drops the
// removed ones, and prints each server's state. The new tools are offered
// from the next turn on.
func reloadMCP(cmd *cobra.Command, a *app, rt *wiring, ctx context.Context) {
	out := cmd.OutOrStdout()
	l, err := config.Load(config.LoadOptions{Profile: a.profile, Env: a.env})
	if err != nil {
		fmt.Fprintln(out, "reload-mcp: config.yaml:", err)
		return
	}
	servers := mcpServers(l.Config)
	for name := range servers {
		rt.tools.registry.Expect(mcp.Toolset(name))
	}
	rctx, cancel := context.WithTimeout(ctx, mcpWait(l.Config))
	defer cancel()
	if err := rt.tools.mcp.Reload(rctx, servers); err != nil {
		fmt.Fprintln(out, "reload-mcp:", err)
	}
	printMCPStatus(out, rt.tools.mcp.Status())
}

// printMCPStatus writes one line per server: name, transport, state, tool
// count and the last error.
func printMCPStatus(w io.Writer, st []mcp.ServerStatus) {
	if len(st) == 0 {
		fmt.Fprintln(w, "no MCP servers are configured (mcp_servers in config.yaml)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tSTATE\tTOOLS\tLAST ERROR")
	for _, s := range st {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Name, s.Transport, s.State, s.Tools, oneLine(s.LastError, 80))
	}
	tw.Flush()
}
