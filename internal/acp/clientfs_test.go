package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestClientFileSystem checks that with an editor that offers
// fs/read_text_file and fs/write_text_file, read_file sees its unsaved
// buffer, patch edits that buffer and write_file writes through it — the
// disk is left to the editor — and that the diff shows the buffer's text.
// Without the offer, the same turn reads and writes the disk.
func TestClientFileSystem(t *testing.T) {
	for _, offered := range []bool{true, false} {
		dir := t.TempDir()
		file := filepath.Join(dir, "main.go")
		if err := os.WriteFile(file, []byte("package disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := llmtest.New(t)
		srv.Enqueue(
			llmtest.Reply{ToolCalls: []llm.ToolCall{call("r1", "read_file", map[string]any{"path": "main.go"})}},
			llmtest.Reply{ToolCalls: []llm.ToolCall{call("p1", "patch", map[string]any{"path": "main.go", "old_string": "package", "new_string": "// edited\npackage"})}},
			llmtest.Reply{ToolCalls: []llm.ToolCall{call("w1", "write_file", map[string]any{"path": "new.go", "content": "package new\n"})}},
			llmtest.Reply{Text: "Done."},
		)
		r := newEngineRig(t, srv, t.TempDir())
		caps := acpsdk.ClientCapabilities{}
		if offered {
			r.cli.buffers = map[string]string{file: "package buffer\n"}
			caps.Fs = acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
		}
		ctx := context.Background()
		if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
			t.Fatal(err)
		}
		s, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.prompt(string(s.SessionId), "edit"); err != nil {
			t.Fatal(err)
		}
		disk, _ := os.ReadFile(file)
		_, newErr := os.Stat(filepath.Join(dir, "new.go"))
		diff := r.cli.finishedCall(t, "p1").Content[0].Diff
		if offered {
			if res := toolResult(srv, "r1"); !strings.Contains(res, "package buffer") {
				t.Errorf("read_file gave %q; want the unsaved buffer", res)
			}
			if r.cli.buffers[file] != "// edited\npackage buffer\n" || string(disk) != "package disk\n" {
				t.Errorf("buffer %q, disk %q; want the patch in the buffer only", r.cli.buffers[file], disk)
			}
			if strings.Join(r.cli.wrote, " ") != file+" "+filepath.Join(dir, "new.go") || newErr == nil {
				t.Errorf("editor wrote %q, new.go on disk: %v; want both writes through the editor", r.cli.wrote, newErr)
			}
			if diff == nil || diff.OldText == nil || *diff.OldText != "package buffer\n" {
				t.Errorf("diff = %+v; want the buffer as the old text", diff)
			}
			continue
		}
		if string(disk) != "// edited\npackage disk\n" || newErr != nil {
			t.Errorf("without the offer: disk %q, new.go %v", disk, newErr)
		}
		if diff == nil || diff.OldText == nil || *diff.OldText != "package disk\n" {
			t.Errorf("diff = %+v", diff)
		}
	}
}
