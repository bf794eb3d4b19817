package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// Tool is the "memory" tool over one Store.
type Tool struct {
	store *Store
}

// NewTool returns the memory tool writing to s.
func NewTool(s *Store) tool.Tool { return &Tool{store: s} }

// args are the tool's arguments: one operation at the top level, or a list.
type args struct {
	Op
	Operations []Op `json:"operations"`
}

// Spec describes the tool. A call writes files, so it is neither parallel
// safe nor retried blindly: a repeated add is harmless, but a repeated
// replace after a lost reply would fail on the vanished old_text.
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "memory",
		Description: description,
		Parameters:  schema,
		Toolset:     "memory",
		Timeout:     15 * time.Second,
	}
}

const opProperties = `
    "action": {"type": "string", "enum": ["add", "replace", "remove"], "description": "add a new entry, replace the entry old_text identifies, or remove it."},
    "target": {"type": "string", "enum": ["memory", "user"], "description": "memory: your notes (environment, conventions, lessons). user: the user profile (preferences, role, style)."},
    "content": {"type": "string", "description": "The entry's full text, for add and replace."},
    "old_text": {"type": "string", "description": "For replace and remove: a short substring that only the entry to change contains."}`

var schema = json.RawMessage(`{
  "type": "object",
  "properties": {` + opProperties + `,
    "operations": {
      "type": "array",
      "description": "Several operations applied all-or-nothing, instead of the single action above; use it to consolidate (remove several entries and add one).",
      "minItems": 1,
      "maxItems": 20,
      "items": {"type": "object", "properties": {` + opProperties + `}, "required": ["action", "target"]}
    }
  }
}`)

// Call applies the call's operations and returns the Result.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object of the memory tool's parameters: %v", err)
	}
	ops := a.Operations
	switch {
	case len(ops) > 0 && (a.Action != "" || a.Content != "" || a.OldText != ""):
		return nil, tool.Errorf(tool.CodeInvalidArguments, "give either operations or a single action with its fields, not both")
	case len(ops) == 0 && a.Action == "":
		return nil, tool.Errorf(tool.CodeInvalidArguments, "action is missing; use add, replace or remove (with target), or pass operations")
	case len(ops) == 0 && a.Target == "":
		return nil, tool.Errorf(tool.CodeInvalidArguments, "target is missing; use \"memory\" (your notes) or \"user\" (the user profile)")
	case len(ops) == 0:
		ops = []Op{a.Op}
	}
	start := time.Now()
	res, err := t.store.Apply(ops)
	slog.DebugContext(ctx, "memory write", "tool", "memory", "session_id", tool.InvocationFrom(ctx).SessionID,
		"operations", len(ops), "written", res.Written, "duration_ms", time.Since(start).Milliseconds(), "err", err)
	if err != nil {
		return nil, err
	}
	return res, nil
}
