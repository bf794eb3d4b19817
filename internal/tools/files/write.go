package files

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed write.md
var writeDescription string

// WriteFile is the write_file tool.
type WriteFile struct{ o Options }

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// WriteResult is write_file's data. Action is "created" or "replaced".
type WriteResult struct {
	Path         string `json:"path"`
	BytesWritten int    `json:"bytes_written"`
	Action       string `json:"action"`
}

// Spec describes write_file. Writing the same content twice gives the
// same file, so a failed call may be retried; calls on one path must not
// overlap.
func (w *WriteFile) Spec() tool.Spec {
	return tool.Spec{
		Name:        "write_file",
		Description: writeDescription,
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to write (created if missing, with its parent directories; replaced entirely if it exists)."},
    "content": {"type": "string", "description": "Complete content to write to the file."}
  },
  "required": ["path", "content"]
}`),
		Toolset:    Toolset,
		Idempotent: true,
		PathArg:    "path",
	}
}

// Call writes content to the file atomically after the guard allows the
// path.
func (w *WriteFile) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be {path, content}: %v", err)
	}
	if a.Content == nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "content is missing; give the complete file content (an empty string for an empty file)")
	}
	abs, err := w.o.abs(ctx, a.Path)
	if err != nil {
		return nil, err
	}
	if err := w.o.check(ctx, abs); err != nil {
		return nil, err
	}
	old := w.o.before(ctx, abs)
	created, err := w.o.write(ctx, abs, []byte(*a.Content))
	if err != nil {
		return nil, err
	}
	changed(ctx, abs, created, old, *a.Content)
	res := WriteResult{Path: w.o.display(ctx, abs), BytesWritten: len(*a.Content), Action: "replaced"}
	if created {
		res.Action = "created"
	}
	return res, nil
}
