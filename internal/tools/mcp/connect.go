package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

// dial starts or reaches a server and runs the initialize handshake,
// within ctx. It returns the session, the stdio command (nil over HTTP)
// and the tail of the command's standard error. onChange, when set, is
// called on the server's tools/list_changed notifications.
func dial(ctx context.Context, cfg ServerConfig, impl *sdk.Implementation, environ []string, onChange func()) (*sdk.ClientSession, *exec.Cmd, *tailBuffer, error) {
	transport, cmd, stderr := newTransport(cfg, environ)
	opts := &sdk.ClientOptions{
		// No roots: a filesystem server would otherwise swap the
		// directories it was started with for hermes's (empty) roots.
		Capabilities: &sdk.ClientCapabilities{},
	}
	if onChange != nil {
		opts.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) { onChange() }
	}
	sess, err := sdk.NewClient(impl, opts).Connect(ctx, transport, nil)
	if err == nil {
		return sess, cmd, stderr, nil
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within the connect timeout: %w", err)
	}
	if cmd != nil && cmd.Process != nil && cmd.ProcessState == nil {
		// A process that never finished the handshake may still run.
		killGroup(cmd)
		cmd.Wait()
	}
	if line := stderr.lastLine(); line != "" {
		err = fmt.Errorf("%w (stderr: %s)", err, truncate(line, 200))
	}
	return nil, nil, nil, err
}

// listTools lists all of a session's tools, following pagination.
func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// connect dials the server, lists its tools and installs them, all within
// the connect timeout. On success the server is connected.
func (s *server) connect(ctx context.Context) (*sdk.ClientSession, *tailBuffer, error) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	sess, cmd, stderr, err := dial(cctx, s.cfg, s.m.impl(), s.m.environ(), s.notifyChanged)
	if err != nil {
		return nil, nil, err
	}
	tools, err := listTools(cctx, sess)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("listing tools: %w", err)
	}
	// Install first and report connected after: whoever sees the state
	// connected then also finds the tools registered and offered.
	n := s.install(tools)
	s.mu.Lock()
	s.state, s.reason, s.sess, s.cmd, s.since = StateConnected, "", sess, cmd, time.Now()
	s.mu.Unlock()
	s.m.reg.Refresh()
	s.log.Info("mcp server connected", "tools", n, "duration_ms", time.Since(start).Milliseconds())
	return sess, stderr, nil
}

// notifyChanged records a tools/list_changed notification for the run
// goroutine; notifications arriving before it relisted are merged.
func (s *server) notifyChanged() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// relist lists the tools again and swaps the registered set.
func (s *server) relist(ctx context.Context, sess *sdk.ClientSession) error {
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	tools, err := listTools(cctx, sess)
	if err != nil {
		return err
	}
	n := s.install(tools)
	s.log.Info("mcp server tools changed", "tools", n)
	return nil
}

// install registers the server's tools in place of the ones registered
// before, with one Swap. A tool that is filtered out, whose schema is
// unusable or whose name collides is skipped with a logged reason. It
// returns how many tools are registered.
func (s *server) install(tools []*sdk.Tool) int {
	reg := s.m.reg
	slices.SortFunc(tools, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	mine := map[string]bool{}
	for _, n := range s.names {
		mine[n] = true
	}
	var add []tool.Tool
	seen := map[string]string{}
	for _, t := range tools {
		if !wanted(s.cfg, t.Name) {
			continue
		}
		rt, err := newRemoteTool(s, t)
		if err != nil {
			s.log.Warn("skipping mcp tool", "tool", t.Name, "error", err)
			continue
		}
		name := rt.spec.Name
		if other, dup := seen[name]; dup {
			s.log.Warn("skipping mcp tool: its name collides with another of the server's tools",
				"tool", t.Name, "other", other, "name", name)
			continue
		}
		if _, taken := reg.Get(name); taken && !mine[name] {
			s.log.Warn("skipping mcp tool: a tool of that name is already registered", "tool", t.Name, "name", name)
			continue
		}
		seen[name] = t.Name
		add = append(add, rt)
	}
	var remove []string
	for _, n := range s.names {
		if _, ok := reg.Get(n); ok {
			remove = append(remove, n)
		}
	}
	names := make([]string, 0, len(add))
	if err := reg.Swap(remove, add); err != nil {
		// Something changed the registry meanwhile: register one by one,
		// so one refused tool does not take the others with it.
		s.log.Warn("registering mcp tools one by one", "error", err)
		reg.Unregister(remove...)
		for _, t := range add {
			if err := reg.Register(t); err != nil {
				s.log.Warn("skipping mcp tool", "tool", t.(*remoteTool).remote, "error", err)
				continue
			}
			names = append(names, t.Spec().Name)
		}
	} else {
		for _, t := range add {
			names = append(names, t.Spec().Name)
		}
	}
	s.mu.Lock()
	s.names = names
	s.mu.Unlock()
	return len(names)
}
