package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/npmtest"
)

// everythingConfig declares server-everything over stdio in config.yaml.
func everythingConfig(t *testing.T) string {
	node := npmtest.Node(t)
	script := npmtest.Script(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	return "mcp_servers:\n  everything:\n    command: " + node + "\n    args: [" + script + ", stdio]\n    tools: {exclude: [trigger-long-running-operation]}\n"
}

func TestMCPServerToolsThroughChat(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", everythingConfig(t))

	var st []struct {
		Name  string `json:"name"`
		State string `json:"state"`
		Tools int    `json:"tools"`
	}
	r := h.hermes("mcp", "list", "--json")
	r.decode(t, &st)
	if len(st) != 1 || st[0].Name != "everything" || st[0].State != "connected" || st[0].Tools < 5 {
		t.Fatalf("mcp list: %+v\n%s", st, r.stderr)
	}
	r = h.hermes("mcp", "test", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "mcp__everything__echo") ||
		!strings.Contains(r.stdout, "left out by tools.include/exclude") {
		t.Errorf("mcp test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("mcp", "test", "nosuch")
	if r.code == 0 || !strings.Contains(r.stderr, "nosuch") {
		t.Errorf("mcp test of an unknown server: exit %d\n%s", r.code, r.stderr)
	}

	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			call("mcp__everything__echo", `{"message":"hello from hermes"}`),
			call("mcp__everything__get-sum", `{"a":19,"b":23}`),
		}},
		llmtest.Reply{Text: "42"},
	)
	out, r := h.chatIn(srv, t.TempDir(), "echo and add", "--toolsets", "mcp-everything")
	if r.code != 0 || out.Final != "42" {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	var offered []string
	for _, s := range srv.Requests()[0].Tools {
		offered = append(offered, s.Name)
	}
	if len(offered) < 5 || strings.Contains(strings.Join(offered, ","), "terminal") ||
		strings.Contains(strings.Join(offered, ","), "trigger-long-running-operation") {
		t.Errorf("with --toolsets mcp-everything the model was offered %v", offered)
	}
	var results []string
	for _, m := range srv.Requests()[1].Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Text())
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "hello from hermes") || !strings.Contains(results[1], "42") {
		t.Errorf("tool results: %q", results)
	}
}

// mcpServe runs hermes mcp serve in h under the official MCP client,
// which takes steps ({"op": "list"} or {"op": "call", "name", "arguments"})
// in order, and returns what it printed for each: a line for connecting,
// one per step and one for closing.
func mcpServe(t *testing.T, h *home, steps ...map[string]any) []map[string]any {
	t.Helper()
	node := npmtest.Node(t)
	sdk := npmtest.Package(t, "@modelcontextprotocol/sdk")
	script, err := filepath.Abs(filepath.Join("..", "..", "internal", "mcpserver", "testdata", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	plan, _ := json.Marshal(map[string]any{
		"sdk": sdk, "transport": "stdio", "command": hermesBin, "args": []string{"mcp", "serve"}, "env": env, "steps": steps,
	})
	cmd := exec.Command(node, script, string(plan))
	cmd.Dir = h.dir
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s\n%s", err, stdout, stderr.String())
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(stdout)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("client printed %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != len(steps)+2 {
		t.Fatalf("client printed %d lines, want %d (connect, %d steps, closed):\n%s\n%s", len(lines), len(steps)+2, len(steps), stdout, stderr.String())
	}
	return lines
}

// TestMCPServeDeclaredTool runs "hermes mcp serve" as Claude Desktop would,
// with the official TypeScript client: it lists hermes's tools and calls a
// declared one; terminal is not exposed.
func TestMCPServeDeclaredTool(t *testing.T) {
	h, api := ordersHome(t)
	lines := mcpServe(t, h,
		map[string]any{"op": "list"},
		map[string]any{"op": "call", "name": "search_orders", "arguments": map[string]any{"status": "paid"}},
		map[string]any{"op": "call", "name": "search_orders", "arguments": map[string]any{"status": "lost"}},
	)
	listed, _ := json.Marshal(lines[1])
	for _, want := range []string{"search_orders", "disk_report", "read_file", "web_extract"} {
		if !strings.Contains(string(listed), `"`+want+`"`) {
			t.Errorf("mcp serve does not list %s: %s", want, listed)
		}
	}
	if strings.Contains(string(listed), `"terminal"`) || strings.Contains(string(listed), `"execute_code"`) {
		t.Errorf("mcp serve exposes shell tools by default: %s", listed)
	}
	ok, _ := json.Marshal(lines[2])
	if !strings.Contains(string(ok), "A1") || strings.Contains(string(ok), `"isError":true`) {
		t.Errorf("calling search_orders: %s", ok)
	}
	bad, _ := json.Marshal(lines[3])
	if !strings.Contains(string(bad), `"isError":true`) || !strings.Contains(string(bad), "invalid_arguments") {
		t.Errorf("calling search_orders with a bad status: %s", bad)
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("the API got %d requests, want 1", n)
	}
}

// TestMCPServeHTTP serves over streamable HTTP with a bearer token from
// .env; the official client with the token calls a declared tool, one
// without it is refused, and a non-loopback address without a token is
// refused at start.
func TestMCPServeHTTP(t *testing.T) {
	h, _ := ordersHome(t)
	node := npmtest.Node(t)
	sdk := npmtest.Package(t, "@modelcontextprotocol/sdk")
	script, _ := filepath.Abs(filepath.Join("..", "..", "internal", "mcpserver", "testdata", "client.mjs"))

	if r := h.hermes("mcp", "serve", "--http", "0.0.0.0:0"); r.code == 0 || !strings.Contains(r.stderr, "HERMES_MCP_TOKEN") {
		t.Errorf("serving beyond loopback without a token: exit %d\n%s", r.code, r.stderr)
	}
	h.write(".env", "ORDERS_API=http://127.0.0.1:1\nORDERS_TOKEN=x\nHERMES_MCP_TOKEN=mcp-tok-3b9f\n")
	cmd := exec.Command(hermesBin, "mcp", "serve", "--http", "127.0.0.1:0")
	cmd.Env, cmd.Dir = h.env, h.dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("mcp serve after Ctrl-C: %v", err)
		}
	}()
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
			url = after
			break
		}
	}
	if url == "" {
		t.Fatal("mcp serve did not say where it serves")
	}
	go io.Copy(io.Discard, stderr)
	run := func(token string) string {
		plan, _ := json.Marshal(map[string]any{"sdk": sdk, "transport": "http", "url": url, "token": token,
			"steps": []map[string]any{{"op": "call", "name": "disk_report", "arguments": map[string]any{"path": h.dir}}}})
		out, err := exec.Command(node, script, string(plan)).Output()
		if err != nil {
			t.Fatalf("client: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := run("mcp-tok-3b9f"); !strings.Contains(out, `exit_code`) || strings.Contains(out, `"isError":true`) {
		t.Errorf("with the token: %s", out)
	}
	if out := run(""); !strings.Contains(out, `"op":"connect","error"`) {
		t.Errorf("without the token: %s", out)
	}
}

// TestChatReloadMCP adds an MCP server to config.yaml during a chat:
// /reload-mcp connects it, and the next turn offers its tools.
func TestChatReloadMCP(t *testing.T) {
	h := newHome(t)
	servers := everythingConfig(t)
	srv := llmtest.New(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	cmd := chatCommand(h, srv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hasEcho := func(i int) bool {
		for _, s := range srv.Requests()[i].Tools {
			if s.Name == "mcp__everything__echo" {
				return true
			}
		}
		return false
	}
	io.WriteString(stdin, "first\n")
	waitRequests(t, srv, 1)
	if hasEcho(0) {
		t.Fatal("an MCP tool was offered before any server was configured")
	}
	h.write("config.yaml", servers)
	io.WriteString(stdin, "/reload-mcp\nsecond\n")
	waitRequests(t, srv, 2)
	io.WriteString(stdin, "/exit\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("chat: %v\n%s", err, out.String())
	}
	if !hasEcho(1) {
		t.Errorf("after /reload-mcp the model was not offered mcp__everything__echo\n%s", out.String())
	}
	if !strings.Contains(out.String(), "everything") || !strings.Contains(out.String(), "connected") {
		t.Errorf("/reload-mcp did not report the server:\n%s", out.String())
	}
}
