package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goServer is an MCP server built with the SDK, served over streamable
// HTTP by httptest. It records the Authorization header it receives and
// can pretend to have lost every session, as a restarted server does.
type goServer struct {
	srv  *sdk.Server
	http *httptest.Server
	lost atomic.Bool
	mu   sync.Mutex
	auth []string
}

func newGoServer(t *testing.T) *goServer {
	t.Helper()
	g := &goServer{srv: sdk.NewServer(&sdk.Implementation{Name: "go-test", Version: "1.0"}, nil)}
	g.srv.AddTool(&sdk.Tool{Name: "hello", Description: "Says hello.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args struct{ Name string }
			json.Unmarshal(req.Params.Arguments, &args)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello " + args.Name}}}, nil
		})
	g.srv.AddTool(&sdk.Tool{Name: "remote-ref", Description: "Its schema points outside itself, which hermes refuses.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`)}, nopHandler)
	g.srv.AddTool(&sdk.Tool{Name: "dotted.name", Description: "Has a dot in its name.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, nopHandler)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return g.srv }, nil)
	g.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.auth = append(g.auth, r.Header.Get("Authorization"))
		g.mu.Unlock()
		if g.lost.Load() {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		// The manager's event stream may still be open, and Close waits
		// for open connections.
		g.http.CloseClientConnections()
		g.http.Close()
	})
	return g
}

func nopHandler(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
}

func (g *goServer) config() ServerConfig {
	return ServerConfig{URL: g.http.URL, Enabled: true, Headers: map[string]string{"Authorization": "Bearer s3cr3t-t0ken"}}
}

func TestGoServer(t *testing.T) {
	g := newGoServer(t)
	m, reg, logs := startManager(t, map[string]ServerConfig{"go": g.config()})

	t.Run("names and schemas", func(t *testing.T) {
		if !offered(reg, "mcp__go__hello") || !offered(reg, "mcp__go__dotted_name") {
			t.Errorf("offered tools: %+v", reg.Specs())
		}
		if _, ok := reg.Get("mcp__go__remote-ref"); ok {
			t.Errorf("a tool with an unusable schema was registered")
		}
		if !strings.Contains(logs.String(), "skipping mcp tool") || !strings.Contains(logs.String(), "tool=remote-ref") {
			t.Errorf("the skipped tool was not logged:\n%s", logs.String())
		}
		if o := dispatch(t, reg, "mcp__go__dotted_name", `{}`); !strings.Contains(o.Content, `"data":"ok"`) {
			t.Errorf("calling the renamed tool = %s", o.Content)
		}
	})

	t.Run("headers", func(t *testing.T) {
		if o := dispatch(t, reg, "mcp__go__hello", `{"name":"ann"}`); !strings.Contains(o.Content, "hello ann") {
			t.Errorf("hello = %s", o.Content)
		}
		g.mu.Lock()
		auth := append([]string(nil), g.auth...)
		g.mu.Unlock()
		for _, a := range auth {
			if a != "Bearer s3cr3t-t0ken" {
				t.Fatalf("a request carried Authorization %q", a)
			}
		}
		if strings.Contains(logs.String(), "s3cr3t") {
			t.Errorf("a header value was logged")
		}
	})

	t.Run("list changed", func(t *testing.T) {
		g.srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, nopHandler)
		waitFor(t, "the new tool to be offered", func() bool { return offered(reg, "mcp__go__late") })
		g.srv.RemoveTools("late")
		waitFor(t, "the removed tool to be unregistered", func() bool {
			_, ok := reg.Get("mcp__go__late")
			return !ok
		})
		if !offered(reg, "mcp__go__hello") {
			t.Errorf("hello went away with late")
		}
	})

	t.Run("session lost", func(t *testing.T) {
		g.lost.Store(true)
		o := dispatch(t, reg, "mcp__go__hello", `{"name":"bob"}`)
		if !strings.Contains(o.Content, `"error_code":"upstream_unavailable"`) {
			t.Errorf("a call after the session was lost = %s", o.Content)
		}
		waitFor(t, "the server to be marked down", func() bool { return status(t, m, "go").State == StateDown })
		if offered(reg, "mcp__go__hello") {
			t.Errorf("the tool of a server that lost its session is still offered")
		}
		g.lost.Store(false)
		waitFor(t, "the server to come back", func() bool { return offered(reg, "mcp__go__hello") })
		if o := dispatch(t, reg, "mcp__go__hello", `{"name":"cy"}`); !strings.Contains(o.Content, "hello cy") {
			t.Errorf("hello after the new session = %s", o.Content)
		}
	})
}
