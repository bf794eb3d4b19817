package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReload(t *testing.T) {
	a, b, c := newGoServer(t), newGoServer(t), newGoServer(t)
	m, reg, _ := startManager(t, map[string]ServerConfig{"a": a.config(), "b": b.config(), "c": c.config()})
	session := func(name string) any {
		m.mu.Lock()
		defer m.mu.Unlock()
		if s := m.servers[name]; s != nil {
			return s.current()
		}
		return nil
	}
	keptA := session("a")
	if keptA == nil {
		t.Fatal("a did not connect")
	}
	changedB := b.config()
	changedB.Timeout = 5 * time.Second
	d := newGoServer(t)
	err := m.Reload(context.Background(), map[string]ServerConfig{"a": a.config(), "b": changedB, "d": d.config()})
	if err != nil {
		t.Fatal(err)
	}
	if session("a") != keptA {
		t.Errorf("the unchanged server was reconnected")
	}
	if hello, ok := reg.Get("mcp__b__hello"); !ok || hello.Spec().Timeout != 5*time.Second {
		t.Errorf("the changed server's tool is missing or keeps the old timeout")
	}
	if _, ok := reg.Get("mcp__c__hello"); ok {
		t.Errorf("the removed server's tools are still registered")
	}
	if !offered(reg, "mcp__d__hello") {
		t.Errorf("the added server's tools are not offered")
	}
	var names []string
	for _, s := range m.Status() {
		names = append(names, s.Name+":"+string(s.State))
	}
	if got := strings.Join(names, " "); got != "a:connected b:connected d:connected" {
		t.Errorf("status after reload = %s", got)
	}
}

func TestBadServersAreNotFatal(t *testing.T) {
	node := everythingStdio(t).Command
	servers := map[string]ServerConfig{
		"missing":  {Command: "/nonexistent/mcp-server", Enabled: true},
		"both":     {Command: node, URL: "http://127.0.0.1:1/mcp", Enabled: true},
		"off":      {Command: node, Enabled: false},
		"silent":   {Command: node, Args: []string{"-e", "setInterval(() => {}, 1000)"}, Enabled: true, ConnectTimeout: 300 * time.Millisecond},
		"refusing": {URL: "http://127.0.0.1:1/mcp", Enabled: true},
	}
	start := time.Now()
	m, reg, logs := startManager(t, servers)
	t.Logf("Start took %v", time.Since(start))
	want := map[string]struct {
		state State
		err   string
	}{
		"missing":  {StateDown, "/nonexistent/mcp-server"},
		"both":     {StateDown, "mcp_servers.both: both command"},
		"off":      {StateDisabled, ""},
		"silent":   {StateDown, "connect timeout"},
		"refusing": {StateDown, "refused"},
	}
	for name, w := range want {
		st := status(t, m, name)
		if st.State != w.state || !strings.Contains(st.LastError, w.err) {
			t.Errorf("%s: status %+v, want %s with %q", name, st, w.state, w.err)
		}
	}
	if n := len(reg.All()); n != 0 {
		t.Errorf("%d tools registered from servers that never connected", n)
	}
	if ts := reg.Toolsets(); !slices.Contains(ts, "mcp-missing") || !slices.Contains(ts, "mcp-off") {
		t.Errorf("toolsets %v lack the expected servers' toolsets", ts)
	}
	if !strings.Contains(logs.String(), "server=missing") {
		t.Errorf("the failed server was not logged by name:\n%s", logs.String())
	}
	if _, err := m.Test(context.Background(), "refusing"); err == nil {
		t.Errorf("testing an unreachable server succeeded")
	}
}
