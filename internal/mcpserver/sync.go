package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/llm"
)

// Keeping the list in sync
//
// The registry may change while clients are connected: declared tools are
// hot-reloaded, an MCP server hermes uses comes or goes, a tool becomes
// available. The SDK server keeps its own list of tools, so the Server
// copies the registry's offered tools into it in two ways:
//
//   - before every tools/list and tools/call request (a middleware), so a
//     client always lists and calls what the registry offers right now;
//   - every PollInterval while Watch runs, so clients that do not list
//     again on their own hear notifications/tools/list_changed, which the
//     SDK sends whenever a sync adds or removes a tool.
//
// A sync costs one copy of the registry's cached spec list and a string
// comparison per tool; it changes the SDK's list only for tools whose
// name, description, schema or hints changed.

// Sync makes the listed tools those the registry offers now. Clients hear
// notifications/tools/list_changed when something changed. It reports how
// many tools were added, replaced or removed.
func (s *Server) Sync() int {
	specs := s.opts.Registry.Specs()
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	want := make(map[string]bool, len(specs))
	changed := 0
	for _, spec := range specs {
		want[spec.Name] = true
		t, print := s.mcpTool(spec)
		if s.offered[spec.Name] == print {
			continue
		}
		if err := s.addTool(t); err != nil {
			s.log.Warn("mcp: tool not exposed", "tool", spec.Name, "error", err)
			// Remember the refusal so the next sync does not log it again.
			s.offered[spec.Name] = print
			continue
		}
		s.offered[spec.Name] = print
		changed++
	}
	var gone []string
	for name := range s.offered {
		if !want[name] {
			gone = append(gone, name)
			delete(s.offered, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
		changed += len(gone)
	}
	if changed > 0 {
		s.log.Debug("mcp: tool list synced", "changed", changed, "tools", len(s.offered))
	}
	return changed
}

// addTool adds or replaces one tool in the SDK server. The SDK panics on
// a schema it cannot accept; that becomes an error, so one odd tool
// cannot take the server down.
func (s *Server) addTool(t *mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the MCP SDK refused it: %v", p)
		}
	}()
	s.mcp.AddTool(t, s.handler(t.Name))
	return nil
}

// mcpTool returns the MCP description of a registry tool and a
// fingerprint that changes whenever the description does.
func (s *Server) mcpTool(spec llm.ToolSpec) (*mcp.Tool, string) {
	t := &mcp.Tool{
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: objectSchema(spec.Parameters),
	}
	hints := ""
	if rt, ok := s.opts.Registry.Get(spec.Name); ok {
		ts := rt.Spec()
		if ts.ParallelSafe || ts.Idempotent {
			t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: ts.ParallelSafe, IdempotentHint: ts.Idempotent}
			hints = fmt.Sprintf("ro=%t,idem=%t", ts.ParallelSafe, ts.Idempotent)
		}
	}
	schema, _ := t.InputSchema.(json.RawMessage)
	print := strings.Join([]string{spec.Description, string(schema), hints}, "\x00")
	return t, print
}

// objectSchema returns the tool's parameters schema as it is, unless its
// top-level "type" is missing or a list: hermes accepts those when they
// allow an object, but MCP requires "type": "object" (and the SDK refuses
// anything else), so then a copy with that type is returned.
func objectSchema(params json.RawMessage) json.RawMessage {
	var doc map[string]json.RawMessage
	if json.Unmarshal(params, &doc) != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	if string(doc["type"]) == `"object"` {
		return params
	}
	doc["type"] = json.RawMessage(`"object"`)
	b, err := json.Marshal(doc)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// syncBeforeTools is a receiving middleware that syncs the tool list
// before a client lists or calls tools, so neither sees a stale list.
func (s *Server) syncBeforeTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" || method == "tools/call" {
			s.Sync()
		}
		return next(ctx, method, req)
	}
}

// Watch syncs the tool list every PollInterval until ctx ends, so
// connected clients hear of tools that came or went without listing
// again. ServeStdio runs it; run it beside HTTPHandler.
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sync()
		}
	}
}
