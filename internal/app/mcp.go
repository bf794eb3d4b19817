package app

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/mcp"
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

// NewMCP returns the manager of the configured MCP servers, with their
// toolsets announced to reg so that selecting one works before (or
// without) its server being up. It connects nothing yet (ConnectMCP).
func NewMCP(l *config.Loaded, reg *tool.Registry, log *slog.Logger, version string) *mcp.Manager {
	servers := mcpServers(l.Config)
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		reg.Expect(mcp.Toolset(name))
	}
	return mcp.NewManager(mcp.Options{
		Servers: servers, Registry: reg, Logger: log,
		ClientName: "hermes", ClientVersion: version,
	})
}

// StartMCP connects the configured MCP servers (ConnectMCP), so their
// tools are offered from the first turn.
func (a *App) StartMCP(ctx context.Context) { ConnectMCP(ctx, a.Tools.MCP, a.Config.Config) }

// ConnectMCP connects the servers of c in parallel. It waits at most for
// the slowest server's connect timeout (and never more than a minute): a
// server that is not up by then keeps connecting in the background, and
// its tools appear when it is.
func ConnectMCP(ctx context.Context, m *mcp.Manager, c config.Config) {
	if len(c.MCPServers) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, mcpWait(c))
	defer cancel()
	_ = m.Start(ctx)
}

// ReloadMCP applies mcp_servers of c (config.yaml read again): it
// reconnects the servers that were added or changed and drops the removed
// ones. The new tools are offered from the next turn on.
func (a *App) ReloadMCP(ctx context.Context, c config.Config) error {
	servers := mcpServers(c)
	for name := range servers {
		a.Tools.Registry.Expect(mcp.Toolset(name))
	}
	ctx, cancel := context.WithTimeout(ctx, mcpWait(c))
	defer cancel()
	return a.Tools.MCP.Reload(ctx, servers)
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
