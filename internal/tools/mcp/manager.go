package mcp

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

// Options configure a Manager.
type Options struct {
	// Servers are the configured MCP servers by name.
	Servers map[string]ServerConfig
	// Registry receives the servers' tools.
	Registry *tool.Registry
	// Logger gets connection events; nil discards them.
	Logger *slog.Logger
	// ClientName and ClientVersion are what hermes calls itself in the
	// initialize handshake; empty means "hermes" and "dev".
	ClientName, ClientVersion string
	// Environ is the environment stdio servers inherit a few variables
	// from (see serverEnv); nil means os.Environ.
	Environ func() []string
	// Backoff is the wait before reconnection attempt n (1, 2, ...); nil
	// means DefaultBackoff. Tests inject a short one.
	Backoff func(attempt int) time.Duration
}

// Manager connects the configured MCP servers, keeps them connected and
// keeps the registry's mcp__ tools in step with them. There is one per
// process.
type Manager struct {
	opts Options
	reg  *tool.Registry
	log  *slog.Logger

	// op serializes Start, Reload and Close.
	op      sync.Mutex
	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// NewManager returns a manager for the servers in opts; Start connects
// them.
func NewManager(opts Options) *Manager {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	reg := opts.Registry
	if reg == nil {
		reg = tool.NewRegistry()
	}
	return &Manager{opts: opts, reg: reg, log: log, servers: map[string]*server{}}
}

// DefaultBackoff waits 1 s before the first reconnection attempt and
// doubles the wait up to 60 s, each wait varied by up to ±20% so servers
// that died together do not come back in lockstep.
func DefaultBackoff(attempt int) time.Duration {
	d := time.Second
	for i := 1; i < attempt && d < time.Minute; i++ {
		d *= 2
	}
	d = min(d, time.Minute)
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

func (m *Manager) backoff(attempt int) time.Duration {
	if m.opts.Backoff != nil {
		return m.opts.Backoff(attempt)
	}
	return DefaultBackoff(attempt)
}

func (m *Manager) impl() *sdk.Implementation {
	name, version := m.opts.ClientName, m.opts.ClientVersion
	if name == "" {
		name = "hermes"
	}
	if version == "" {
		version = "dev"
	}
	return &sdk.Implementation{Name: name, Version: version}
}

func (m *Manager) environ() []string {
	if m.opts.Environ != nil {
		return m.opts.Environ()
	}
	return os.Environ()
}

// Start connects every enabled server in parallel and returns when each
// has connected or failed its first attempt (bounded by its connect
// timeout) or ctx ends. A server that fails is logged and reported by
// Status, and keeps being retried in the background; it never makes Start
// fail. ctx bounds only the wait: the servers run until Close.
func (m *Manager) Start(ctx context.Context) error {
	m.op.Lock()
	defer m.op.Unlock()
	return m.add(ctx, m.opts.Servers)
}

// add starts the given servers and waits for their first attempts.
func (m *Manager) add(ctx context.Context, servers map[string]ServerConfig) error {
	var started []*server
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		cfg := servers[name]
		s := newServer(m, name, cfg)
		m.servers[name] = s
		// Selecting the server's toolset must work before its tools
		// arrive (or while it cannot connect).
		m.reg.Expect(Toolset(name))
		switch err := cfg.validate(name); {
		case !cfg.Enabled:
			s.state = StateDisabled
		case err != nil:
			s.state, s.reason = StateDown, err.Error()
			s.log.Error("mcp server is misconfigured", "error", err)
		default:
			s.start()
			started = append(started, s)
		}
	}
	m.mu.Unlock()
	for _, s := range started {
		select {
		case <-s.first:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Reload applies a new configuration: servers removed or changed are
// disconnected and their tools unregistered, servers added or changed are
// connected (as Start does), unchanged servers keep their connection.
func (m *Manager) Reload(ctx context.Context, servers map[string]ServerConfig) error {
	m.op.Lock()
	defer m.op.Unlock()
	m.mu.Lock()
	var stale []*server
	fresh := map[string]ServerConfig{}
	for name, s := range m.servers {
		cfg, ok := servers[name]
		if !ok || !reflect.DeepEqual(cfg.withDefaults(), s.cfg) {
			stale = append(stale, s)
			delete(m.servers, name)
		}
	}
	for name, cfg := range servers {
		if _, kept := m.servers[name]; !kept {
			fresh[name] = cfg
		}
	}
	m.opts.Servers = maps.Clone(servers)
	m.mu.Unlock()
	m.stopAll(stale)
	for _, s := range stale {
		s.log.Info("mcp server disconnected by reload")
	}
	return m.add(ctx, fresh)
}

// Close disconnects every server (stdio servers exit or are killed),
// unregisters their tools and waits for the manager's goroutines to end.
func (m *Manager) Close() error {
	m.op.Lock()
	defer m.op.Unlock()
	m.mu.Lock()
	m.closed = true
	all := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	m.stopAll(all)
	return nil
}

// stopAll stops servers in parallel: closing a stdio server may wait a
// few seconds for it to exit.
func (m *Manager) stopAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
}
