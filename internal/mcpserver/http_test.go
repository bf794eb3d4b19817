package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// serveHTTP serves srv on a test HTTP server at /mcp and returns the URL.
func serveHTTP(t *testing.T, srv *Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler())
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = srv.Close()
		hs.Close()
	})
	return hs.URL + "/mcp"
}

// TestHTTP checks the streamable HTTP endpoint with the official
// TypeScript client, with and without a bearer token.
func TestHTTP(t *testing.T) {
	srv := mustServer(t, Options{Token: "s3cret-token"})
	url := serveHTTP(t, srv)

	t.Run("conformance", func(t *testing.T) {
		p := newPlan(t, "http", callSteps...)
		p.URL, p.Token = url, "s3cret-token"
		checkConformance(t, runClient(t, p))
	})

	t.Run("client without token is refused", func(t *testing.T) {
		p := newPlan(t, "http", step{Op: "list"})
		p.URL = url
		c := startClient(t, p)
		ev := c.next("connect")
		if ev.Error == "" || !strings.Contains(ev.Error, "bearer token") {
			t.Errorf("connect without a token: error %q, want the refusal naming the bearer token", ev.Error)
		}
	})

	tests := []struct {
		name, auth string
		want       int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
		{"token without scheme", "s3cret-token", http.StatusUnauthorized},
		{"right token", "Bearer s3cret-token", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer WWW-Authenticate header")
			}
		})
	}
}

// TestToolListChanges swaps tools in the registry while a client is
// connected: the client hears notifications/tools/list_changed and lists
// the new set; ending its session reaches OnSessionEnd.
func TestToolListChanges(t *testing.T) {
	reg, err := testRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ended []string
	srv, err := newServerOn(reg, Options{
		PollInterval: 20 * time.Millisecond,
		OnSessionEnd: func(id string) {
			mu.Lock()
			ended = append(ended, id)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Watch(ctx)
	url := serveHTTP(t, srv)

	p := newPlan(t, "http",
		step{Op: "list"},
		step{Op: "pause"},
		step{Op: "await_list_changed", TimeoutMS: 30000},
		step{Op: "list"},
		step{Op: "call", Name: "track_parcel"},
		step{Op: "call", Name: "whoami"},
	)
	p.URL, p.Terminate = url, true
	c := startClient(t, p)
	conn := c.next("connect")
	if conn.Error != "" || conn.Session == "" {
		t.Fatalf("connect: %+v, want a session", conn)
	}
	if got := names(c.next("list").Tools); !slices.Equal(got, exposedTools) {
		t.Fatalf("first list %v, want %v", got, exposedTools)
	}
	c.next("pause")
	track := funcTool{spec: tool.Spec{Name: "track_parcel", Description: "Tracks a parcel."}, call: func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"where": "depot"}, nil
	}}
	if err := reg.Swap([]string{"greet"}, []tool.Tool{track}); err != nil {
		t.Fatal(err)
	}
	c.resume()
	if ev := c.next("await_list_changed"); ev.Changes == 0 {
		t.Errorf("no notifications/tools/list_changed reached the client after the registry changed")
	}
	want := []string{"delete_scratch", "fail_always", "lookup_order", "screenshot", "track_parcel", "whoami"}
	if got := names(c.next("list").Tools); !slices.Equal(got, want) {
		t.Errorf("second list %v, want %v", got, want)
	}
	if res := result(t, c.next("call")); res.IsError || res.StructuredContent["where"] != "depot" {
		t.Errorf("track_parcel: %+v, want its data", res)
	}
	who := result(t, c.next("call"))
	c.next("closed")
	sid := who.StructuredContent["session_id"]
	if sid != sessionPrefix+conn.Session {
		t.Errorf("session_id %v, want %q: the MCP session ID with hermes's prefix", sid, sessionPrefix+conn.Session)
	}
	waitFor(t, "OnSessionEnd after the client ended its session", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(ended, sessionPrefix+conn.Session)
	})
}

// waitFor polls cond until it holds, failing t after a generous while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(lineWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
