package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestStdioEnds starts the test binary as a stdio server, initializes a
// session by hand, and ends it the two ways a client or a person does:
// closing stdin (the client went away) and Ctrl-C. Either way the server
// exits 0, and nothing but protocol messages appeared on stdout.
func TestStdioEnds(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		end  func(cmd *exec.Cmd, stdin io.Closer) error
	}{
		{"stdin closed", func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() }},
		{"interrupt", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(os.Interrupt) }},
		{"terminate", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGTERM) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), lineWait)
			defer cancel()
			cmd := exec.CommandContext(ctx, self)
			cmd.Env = append(os.Environ(), serveEnv+"=stdio")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			in := bufio.NewScanner(stdout)
			send := func(msg string) {
				t.Helper()
				if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"by-hand","version":"1"}}}`)
			if !in.Scan() {
				t.Fatalf("no answer to initialize; stderr:\n%s", stderr.String())
			}
			var init struct {
				ID     int `json:"id"`
				Result struct {
					ServerInfo struct{ Name string } `json:"serverInfo"`
				} `json:"result"`
			}
			if err := json.Unmarshal(in.Bytes(), &init); err != nil || init.ID != 1 || init.Result.ServerInfo.Name != "hermes" {
				t.Fatalf("initialize answered %s (%v), want hermes's server info", in.Bytes(), err)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
			if !in.Scan() || !strings.Contains(in.Text(), "hello from hermes") {
				t.Fatalf("tools/call answered %q, want the greeting", in.Text())
			}
			if err := tt.end(cmd, stdin); err != nil {
				t.Fatal(err)
			}
			for in.Scan() {
				var msg map[string]any
				if json.Unmarshal(in.Bytes(), &msg) != nil || msg["jsonrpc"] != "2.0" {
					t.Errorf("stdout carried %q, which is not a protocol message", in.Text())
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("server ended with %v, want exit 0; stderr:\n%s", err, stderr.String())
			}
		})
	}
}
