package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/npmtest"
	"github.com/hermes-go/hermes/internal/tool"
)

const everythingPkg = "@modelcontextprotocol/server-everything"

// everythingStdio is the configuration of server-everything over stdio.
func everythingStdio(t *testing.T) ServerConfig {
	t.Helper()
	node := npmtest.Node(t)
	script := npmtest.Script(t, everythingPkg, "dist/index.js")
	return ServerConfig{Command: node, Args: []string{script, "stdio"}, Enabled: true}
}

// everythingHTTP starts server-everything's streamable HTTP transport as
// a child process on a free port and returns its endpoint.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	node := npmtest.Node(t)
	script := npmtest.Script(t, everythingPkg, "dist/index.js")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, "the HTTP server to accept connections", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + addr + "/mcp"
}

// fastBackoff reconnects almost at once, so tests of a dead server do
// not wait for the production backoff.
func fastBackoff(int) time.Duration { return 20 * time.Millisecond }

// testLogger writes the manager's log to the test log and keeps it, so
// tests can check what was (and was not) logged.
type testLogger struct {
	t  *testing.T
	mu sync.Mutex
	b  strings.Builder
}

func (l *testLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	return len(p), nil
}

func (l *testLogger) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startManager starts a manager for servers with a fresh registry and
// closes it when the test ends.
func startManager(t *testing.T, servers map[string]ServerConfig, environ ...string) (*Manager, *tool.Registry, *testLogger) {
	t.Helper()
	return startManagerWith(t, servers, fastBackoff, environ...)
}

// startManagerWith is startManager with a chosen backoff.
func startManagerWith(t *testing.T, servers map[string]ServerConfig, backoff func(int) time.Duration, environ ...string) (*Manager, *tool.Registry, *testLogger) {
	t.Helper()
	reg := tool.NewRegistry()
	logs := &testLogger{t: t}
	m := NewManager(Options{
		Servers: servers, Registry: reg, Backoff: backoff,
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Environ: func() []string { return append(os.Environ(), environ...) },
	})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Close()
		if t.Failed() {
			t.Logf("manager log:\n%s", logs.String())
		}
	})
	return m, reg, logs
}

// dispatch runs one call through a dispatcher as the agent loop would and
// returns its outcome.
func dispatch(t *testing.T, reg *tool.Registry, name, args string) tool.Outcome {
	t.Helper()
	d := &tool.Dispatcher{Registry: reg}
	return d.Run(context.Background(), []llm.ToolCall{{ID: "c1", Name: name, Arguments: args}}, nil)[0]
}

// envelope decodes an outcome's content.
func envelope(t *testing.T, o tool.Outcome) map[string]any {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal([]byte(o.Content), &env); err != nil {
		t.Fatalf("content %q is not JSON: %v", o.Content, err)
	}
	return env
}

// offered reports whether the registry offers the named tool to the model.
func offered(reg *tool.Registry, name string) bool {
	for _, s := range reg.Specs() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// info returns the registry's info on a tool.
func info(reg *tool.Registry, name string) (tool.Info, bool) {
	for _, i := range reg.Infos() {
		if i.Name == name {
			return i, true
		}
	}
	return tool.Info{}, false
}

// waitFor polls cond for up to 20 s; the limit only ends a hung test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// status returns the status of one server.
func status(t *testing.T, m *Manager, name string) ServerStatus {
	t.Helper()
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for server %q in %+v", name, m.Status())
	return ServerStatus{}
}

// process returns the running process of a stdio server.
func process(m *Manager, name string) *exec.Cmd {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd
}
