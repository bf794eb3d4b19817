package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/npmtest"
)

// lineWait bounds the wait for one line of the client; it only keeps a
// broken test from hanging, no test asserts on speed.
const lineWait = 45 * time.Second

// plan is what testdata/client.mjs runs.
type plan struct {
	SDK       string            `json:"sdk"`
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	URL       string            `json:"url,omitempty"`
	Token     string            `json:"token,omitempty"`
	Terminate bool              `json:"terminate,omitempty"`
	Steps     []step            `json:"steps"`
}

// step is one thing the client does.
type step struct {
	Op        string         `json:"op"`
	Name      string         `json:"name,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	TimeoutMS int            `json:"timeout_ms,omitempty"`
}

// event is one line the client printed.
type event struct {
	Op      string          `json:"op"`
	Name    string          `json:"name"`
	Error   string          `json:"error"`
	Session string          `json:"session"`
	Tools   []listedTool    `json:"tools"`
	Result  *callResult     `json:"result"`
	Changes int             `json:"changes"`
	Server  json.RawMessage `json:"server"`
}

// listedTool is a tool as the client lists it.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations map[string]any  `json:"annotations"`
}

// callResult is a tools/call result as the client got it.
type callResult struct {
	Content           []contentPart  `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// contentPart is one part of a result's content.
type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
}

// client is a running testdata/client.mjs.
type client struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *bytes.Buffer
}

// newPlan returns a plan with the SDK's directory filled in, or skips t
// when Node or the SDK is not installed.
func newPlan(t *testing.T, transport string, steps ...step) plan {
	t.Helper()
	npmtest.Node(t)
	return plan{SDK: npmtest.Package(t, "@modelcontextprotocol/sdk"), Transport: transport, Steps: steps}
}

// startClient runs the client on p.
func startClient(t *testing.T, p plan) *client {
	t.Helper()
	node := npmtest.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*lineWait)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, node, script, string(raw))
	c := &client{t: t, cmd: cmd, lines: make(chan string, 64), stderr: &bytes.Buffer{}}
	cmd.Stderr = c.stderr
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = c.stdin.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("client stderr:\n%s", c.stderr.String())
		}
	})
	return c
}

// next returns the client's next event, failing the test when the client
// ends or prints something else first.
func (c *client) next(wantOp string) event {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("client ended before %q; stderr:\n%s", wantOp, c.stderr.String())
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			c.t.Fatalf("client printed %q, not JSON: %v", line, err)
		}
		if ev.Op != wantOp {
			c.t.Fatalf("client printed %s, want op %q", line, wantOp)
		}
		return ev
	case <-time.After(lineWait):
		c.t.Fatalf("client printed nothing for %v while %q was expected; stderr:\n%s", lineWait, wantOp, c.stderr.String())
	}
	return event{}
}

// resume lets a paused client go on.
func (c *client) resume() {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
		c.t.Fatal(err)
	}
}

// runClient runs p to its end and returns the events after the
// connection, one per step, checking that the connection succeeded.
func runClient(t *testing.T, p plan) []event {
	t.Helper()
	c := startClient(t, p)
	if ev := c.next("connect"); ev.Error != "" {
		t.Fatalf("client could not connect: %s", ev.Error)
	}
	var evs []event
	for _, s := range p.Steps {
		evs = append(evs, c.next(s.Op))
	}
	c.next("closed")
	return evs
}

// names lists the names of listed tools.
func names(tools []listedTool) []string {
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Name
	}
	return out
}
