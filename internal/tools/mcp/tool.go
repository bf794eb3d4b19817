package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

// remoteTool is one tool of an MCP server as hermes registers it. Calls go
// to the server's current session, so the tool survives reconnects; while
// the server is down, Available withholds it from the model.
type remoteTool struct {
	srv    *server
	remote string // the server's own name for the tool
	spec   tool.Spec
}

func (t *remoteTool) Spec() tool.Spec { return t.spec }

// Available reports the server down while it is not connected.
func (t *remoteTool) Available() error { return t.srv.available() }

// Call runs the tool on the server and maps its result onto hermes's
// envelope (see toData).
func (t *remoteTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	sess := t.srv.current()
	if sess == nil {
		err := tool.Errorf(tool.CodeUpstreamUnavailable, "%v", t.srv.available())
		err.Retryable = true // nothing was sent
		return nil, err
	}
	var arguments map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &arguments); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object: %v", err)
		}
	}
	start := time.Now()
	res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: arguments})
	if err != nil {
		log := t.srv.log.With("tool", t.spec.Name, "duration_ms", time.Since(start).Milliseconds())
		return nil, t.callError(ctx, sess, log, err)
	}
	return toData(res)
}

// callError classifies a failed call. The context's own end is returned
// as is, so the dispatcher reports timeout or interruption; an error the
// server answered with leaves the server up; anything else means the
// connection is gone, and the server is marked down and reconnected.
func (t *remoteTool) callError(ctx context.Context, sess *sdk.ClientSession, log *slog.Logger, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		log.Info("mcp server refused the call", "code", wire.Code)
		if wire.Code == jsonrpc.CodeInvalidParams {
			return tool.Errorf(tool.CodeInvalidArguments, "MCP server %s refused the arguments: %s", t.srv.name, wire.Message)
		}
		return tool.Errorf(tool.CodeUpstreamUnavailable, "MCP server %s answered with an error: %s", t.srv.name, wire.Message)
	}
	log.Warn("mcp call failed; the server is marked down", "error", err)
	t.srv.broken(sess, err)
	return tool.Errorf(tool.CodeUpstreamUnavailable, "MCP server %s is unreachable: %v; reconnecting", t.srv.name, err)
}

// newRemoteTool builds the hermes tool for one of a server's tools, or
// says why it cannot be offered.
func newRemoteTool(srv *server, t *sdk.Tool) (*remoteTool, error) {
	name := ToolName(srv.name, t.Name)
	params, err := objectSchema(t.InputSchema)
	if err != nil {
		return nil, err
	}
	if _, err := tool.CompileSchema(name, params); err != nil {
		return nil, err
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, srv.name)
	}
	spec := tool.Spec{
		Name:         name,
		Description:  desc,
		Parameters:   params,
		Toolset:      Toolset(srv.name),
		Timeout:      srv.cfg.Timeout,
		ParallelSafe: srv.cfg.SupportsParallelToolCalls,
	}
	if a := t.Annotations; a != nil {
		spec.ParallelSafe = spec.ParallelSafe || a.ReadOnlyHint
		spec.Idempotent = a.IdempotentHint
	}
	return &remoteTool{srv: srv, remote: t.Name, spec: spec}, nil
}

// objectSchema returns a tool's input schema as JSON, making sure it
// describes an object: {"type":"object"} when the server sent none, and
// "type" added when it was left out.
func objectSchema(schema any) (json.RawMessage, error) {
	if schema == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("input schema cannot be encoded: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("input schema is not a JSON object: %s", truncate(string(raw), 80))
	}
	if _, ok := obj["type"]; !ok {
		obj["type"] = "object"
		if raw, err = json.Marshal(obj); err != nil {
			return nil, fmt.Errorf("input schema cannot be encoded: %w", err)
		}
	}
	return raw, nil
}

// truncate shortens s for a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
