package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// TestServerKilledAndBack kills a stdio server mid-session: its tools stay
// registered but are no longer offered, calls are not attempted, and
// after the reconnect the tools are back and work.
func TestServerKilledAndBack(t *testing.T) {
	// The reconnection waits until the test has seen the server down.
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	m, reg, logs := startManagerWith(t, map[string]ServerConfig{"everything": everythingStdio(t)},
		func(int) time.Duration { <-gate; return 0 })
	t.Cleanup(release)
	const echo = "mcp__everything__echo"
	if o := dispatch(t, reg, echo, `{"message":"before"}`); !strings.Contains(o.Content, "Echo: before") {
		t.Fatalf("echo before the kill = %s", o.Content)
	}
	first := process(m, "everything")
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}

	waitFor(t, "the server to be marked down", func() bool { return status(t, m, "everything").State == StateDown })
	if offered(reg, echo) {
		t.Errorf("a down server's tool is still offered")
	}
	if i, ok := info(reg, echo); !ok || i.Available || !strings.Contains(i.Reason, "MCP server everything is down") {
		t.Errorf("info of a down server's tool = %+v, %v", i, ok)
	}
	if st := status(t, m, "everything"); !strings.Contains(st.LastError, "exited") || st.Tools == 0 {
		t.Errorf("status = %+v, want the process's exit and the tools kept", st)
	}
	if o := dispatch(t, reg, echo, `{"message":"while down"}`); !strings.Contains(o.Content, "is down") {
		t.Errorf("a call while down = %s, want the reason", o.Content)
	}
	release()

	waitFor(t, "the server to reconnect", func() bool {
		return status(t, m, "everything").State == StateConnected && process(m, "everything") != first
	})
	if !offered(reg, echo) {
		t.Fatalf("after reconnecting, %s is not offered", echo)
	}
	if o := dispatch(t, reg, echo, `{"message":"after"}`); !strings.Contains(o.Content, "Echo: after") {
		t.Errorf("echo after the reconnect = %s", o.Content)
	}
	if !strings.Contains(logs.String(), "mcp server is down; reconnecting") {
		t.Errorf("the loss was not logged:\n%s", logs.String())
	}
	if first.ProcessState == nil {
		t.Errorf("the killed process was not reaped")
	}
}

// TestDownServerCallIsUnavailable calls a tool of a server that is down
// directly (as a call racing the loss would): it fails fast with
// upstream_unavailable and is marked retryable, since nothing was sent.
func TestDownServerCallIsUnavailable(t *testing.T) {
	m, reg, _ := startManager(t, map[string]ServerConfig{"everything": everythingStdio(t)})
	echo, _ := reg.Get("mcp__everything__echo")
	m.mu.Lock()
	s := m.servers["everything"]
	m.mu.Unlock()
	s.stop()
	_, err := echo.Call(context.Background(), []byte(`{"message":"x"}`))
	te, ok := err.(interface{ Error() string })
	if !ok || !strings.Contains(te.Error(), "upstream_unavailable") || !strings.Contains(te.Error(), "everything") {
		t.Fatalf("call on a stopped server: %v", err)
	}
	if e, _ := tool.AsError(err); e == nil || !e.Retryable {
		t.Errorf("the error is not retryable: %#v", err)
	}
	if p := process(m, "everything"); p.ProcessState == nil {
		t.Errorf("the stopped server's process still runs")
	}
}

// TestCloseStopsChildren checks that Close ends every stdio server and
// unregisters the tools.
func TestCloseStopsChildren(t *testing.T) {
	cfg := everythingStdio(t)
	m, reg, _ := startManager(t, map[string]ServerConfig{"a": cfg, "b": cfg})
	pa, pb := process(m, "a"), process(m, "b")
	if pa == nil || pb == nil {
		t.Fatal("servers did not start")
	}
	m.Close()
	if pa.ProcessState == nil || pb.ProcessState == nil {
		t.Errorf("children still running after Close: %v, %v", pa.ProcessState, pb.ProcessState)
	}
	if n := len(reg.All()); n != 0 {
		t.Errorf("%d tools still registered after Close", n)
	}
	if err := m.Start(context.Background()); err != nil || len(reg.All()) != 0 {
		t.Errorf("Start after Close registered tools (err %v)", err)
	}
}
