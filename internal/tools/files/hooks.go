package files

import (
	"context"
	"os"
	"strings"

	"github.com/hermes-go/hermes/internal/tool"
)

// Hooks let the front a turn runs in follow the turn's file changes and
// carry its reads and writes of local files. A front sets them on the
// turn's context with WithHooks; the tools find them in the context of
// each call.
type Hooks struct {
	// Changed, when set, hears each change write_file and patch made,
	// after the file was written. It is called from the tool's goroutine
	// and should return quickly.
	Changed func(Change)
	// ReadText, when set, returns the text of a local file as the
	// program holding it open sees it (an editor's unsaved buffer).
	// read_file and patch use it for text files of at most
	// maxRemoteRead bytes on disk; when it fails they read the disk.
	ReadText func(ctx context.Context, path string) (string, error)
	// WriteText, when set, writes a local file through the program
	// holding it open, so its buffer and undo history hold the change;
	// write_file and patch use it after every check has passed. path is
	// the file a symbolic link leads to; its directory exists. An empty
	// content is written to the disk.
	WriteText func(ctx context.Context, path, content string) error
}

// Change is one file write_file or patch changed.
type Change struct {
	// CallID is the tool call that made it.
	CallID string
	// Path is the file, absolute.
	Path string
	// Created is set when the file did not exist before.
	Created bool
	// Old is the content before the change; nil when the file was
	// created, or was not read (over maxPatchBytes, binary, or a file
	// the tools may not read).
	Old *string
	// New is the content written.
	New string
	// Line is the first line, from 1, that differs.
	Line int
}

type hooksKey struct{}

// WithHooks returns ctx carrying h for the file tools called under it.
func WithHooks(ctx context.Context, h Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooksFrom returns the hooks in ctx, or none.
func hooksFrom(ctx context.Context) Hooks {
	h, _ := ctx.Value(hooksKey{}).(Hooks)
	return h
}

// changed tells the hooks in ctx that abs went from old to new.
func changed(ctx context.Context, abs string, created bool, old *string, new string) {
	h := hooksFrom(ctx)
	if h.Changed == nil {
		return
	}
	if created {
		old = nil
	}
	line := 1
	if old != nil {
		line = firstChangedLine(*old, new)
	}
	h.Changed(Change{CallID: tool.InvocationFrom(ctx).CallID, Path: abs, Created: created, Old: old, New: new, Line: line})
}

// before reads the content abs has before write_file replaces it, for
// the hooks in ctx; nil when none listens or it is not a readable text
// file of at most maxPatchBytes.
func (o Options) before(ctx context.Context, abs string) *string {
	if hooksFrom(ctx).Changed == nil || o.checkRead(ctx, abs) != nil {
		return nil
	}
	if o.FS == nil {
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			return nil
		}
	}
	data, err := o.readPatched(ctx, abs)
	if err != nil || isBinary(data[:min(len(data), sniffLen)]) {
		return nil
	}
	s := string(data)
	return &s
}

// firstChangedLine is the number of the first line where a and b differ.
func firstChangedLine(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return strings.Count(a[:n], "\n") + 1
}

// approveWrite asks the invocation's approver, when it judges writes,
// whether abs may be written.
func approveWrite(ctx context.Context, abs string) error {
	wa, ok := tool.InvocationFrom(ctx).Approver.(tool.WriteApprover)
	if !ok {
		return nil
	}
	if err := wa.ApproveWrite(ctx, abs); err != nil {
		return tool.Errorf(tool.CodeDenied, "%v", err)
	}
	return nil
}
