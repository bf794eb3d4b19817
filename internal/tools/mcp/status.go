package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ServerStatus is one server as "hermes mcp list" shows it.
type ServerStatus struct {
	Name      string    `json:"name"`
	Transport Transport `json:"transport"`
	State     State     `json:"state"`
	// Tools counts the server's tools registered in hermes.
	Tools int `json:"tools"`
	// LastError is why the server is down, empty while it is connected.
	LastError string `json:"last_error,omitempty"`
	// Since is when the server entered its state.
	Since time.Time `json:"since"`
}

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	out := make([]ServerStatus, 0, len(servers))
	for _, s := range servers {
		s.mu.Lock()
		out = append(out, ServerStatus{
			Name: s.name, Transport: s.cfg.transport(), State: s.state,
			Tools: len(s.names), LastError: s.reason, Since: s.since,
		})
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b ServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// TestReport is what "hermes mcp test NAME" prints: whether the server
// answers, how fast, and the tools it offers.
type TestReport struct {
	Server    string    `json:"server"`
	Transport Transport `json:"transport"`
	// ServerName and ServerVersion are what the server calls itself.
	ServerName    string `json:"server_name"`
	ServerVersion string `json:"server_version"`
	// Connect is the time to start or reach the server and initialize;
	// List the time to list its tools.
	Connect time.Duration `json:"connect"`
	List    time.Duration `json:"list"`
	Tools   []TestTool    `json:"tools"`
}

// TestTool is one tool the server lists.
type TestTool struct {
	// Name is the server's name for the tool; Registered the name hermes
	// offers it under, empty when the include/exclude filters drop it.
	Name        string `json:"name"`
	Registered  string `json:"registered,omitempty"`
	Description string `json:"description"`
	// Problem says why hermes cannot offer the tool, if it cannot.
	Problem string `json:"problem,omitempty"`
}

// Test connects the named server from scratch (apart from any running
// connection), lists its tools, and disconnects. Disabled servers can be
// tested too. The connect timeout bounds the connection and the listing.
func (m *Manager) Test(ctx context.Context, name string) (TestReport, error) {
	m.mu.Lock()
	cfg, ok := m.opts.Servers[name]
	known := slices.Sorted(maps.Keys(m.opts.Servers))
	m.mu.Unlock()
	if !ok {
		return TestReport{}, fmt.Errorf("there is no MCP server named %q in mcp_servers; configured: %v", name, known)
	}
	if err := cfg.validate(name); err != nil {
		return TestReport{}, err
	}
	cfg = cfg.withDefaults()
	rep := TestReport{Server: name, Transport: cfg.transport()}
	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	start := time.Now()
	sess, _, _, err := dial(ctx, cfg, m.impl(), m.environ(), nil)
	if err != nil {
		return rep, fmt.Errorf("MCP server %s: %w", name, err)
	}
	defer sess.Close()
	rep.Connect = time.Since(start)
	if info := sess.InitializeResult(); info != nil && info.ServerInfo != nil {
		rep.ServerName, rep.ServerVersion = info.ServerInfo.Name, info.ServerInfo.Version
	}
	start = time.Now()
	tools, err := listTools(ctx, sess)
	if err != nil {
		return rep, fmt.Errorf("MCP server %s: listing tools: %w", name, err)
	}
	rep.List = time.Since(start)
	probe := &server{name: name, cfg: cfg}
	for _, t := range tools {
		tt := TestTool{Name: t.Name, Description: t.Description}
		if wanted(cfg, t.Name) {
			tt.Registered = ToolName(name, t.Name)
			if _, err := newRemoteTool(probe, t); err != nil {
				tt.Problem = err.Error()
			}
		}
		rep.Tools = append(rep.Tools, tt)
	}
	return rep, nil
}
