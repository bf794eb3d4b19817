package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// toolCall is a call of tool name with args as the model sends it.
func toolCall(id, name string, args map[string]any) llm.ToolCall {
	raw, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: string(raw)}
}

// updatesOf returns a step's updates about tool call id.
func updatesOf(s acpStep, id string) []acpUpdate {
	var out []acpUpdate
	for _, u := range s.Updates {
		if u.ID == id {
			out = append(out, u)
		}
	}
	return out
}

// TestACPToolCallsWithOfficialClient streams a turn with reasoning, text
// and file edits to the official TypeScript client: each edit's tool_call
// names its file, its update carries an ACP diff (no oldText for the new
// file), the todo list becomes the plan, and writes outside the project
// ask the editor, honouring reject and allow once.
func TestACPToolCallsWithOfficialClient(t *testing.T) {
	h := newHome(t)
	base := t.TempDir()
	work, outside := filepath.Join(base, "project"), filepath.Join(base, "elsewhere")
	for _, d := range []string{work, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	notes := filepath.Join(work, "notes.md")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{Reasoning: "Plan first.", Text: "Editing.", ToolCalls: []llm.ToolCall{toolCall("w1", "write_file", map[string]any{"path": "notes.md", "content": "# Notes\nfirst\n"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("p1", "patch", map[string]any{"path": "notes.md", "old_string": "first", "new_string": "second"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("t1", "todo", map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "write notes", "status": "completed"},
			{"id": "2", "content": "review them", "status": "in_progress"},
		}})}},
		llmtest.Reply{Text: "Edited."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("w2", "write_file", map[string]any{"path": "../elsewhere/rejected.txt", "content": "x"})}},
		llmtest.Reply{Text: "Refused."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("w3", "write_file", map[string]any{"path": filepath.Join(outside, "allowed.txt"), "content": "y"})}},
		llmtest.Reply{Text: "Written."},
	)
	steps := acpRun(t, h, srv, work,
		map[string]any{"op": "initialize"},
		map[string]any{"op": "new"},
		map[string]any{"op": "prompt", "text": "edit the notes"},
		map[string]any{"op": "prompt", "text": "write outside", "permission": "deny"},
		map[string]any{"op": "prompt", "text": "write outside again", "permission": "once"},
	)
	edit := steps[2]
	want := "agent_thought_chunk agent_message_chunk tool_call tool_call_update tool_call tool_call_update tool_call tool_call_update plan agent_message_chunk"
	if edit.StopReason != "end_turn" || kinds(edit.Updates) != want {
		t.Fatalf("prompt: stop %q, updates %s; want %s", edit.StopReason, kinds(edit.Updates), want)
	}
	w := updatesOf(edit, "w1")
	if len(w) != 2 || w[0].ToolKind != "edit" || len(w[0].Locations) != 1 || w[0].Locations[0].Path != notes {
		t.Errorf("write_file tool_call = %+v; want kind edit at %s", w, notes)
	}
	if d := w[1].Diffs; len(d) != 1 || d[0].Path != notes || d[0].OldText != nil || d[0].NewText != "# Notes\nfirst\n" {
		t.Errorf("write_file diff = %+v; want the new file with oldText null", d)
	}
	p := updatesOf(edit, "p1")
	if d := p[1].Diffs; len(d) != 1 || d[0].OldText == nil || *d[0].OldText != "# Notes\nfirst\n" || d[0].NewText != "# Notes\nsecond\n" {
		t.Errorf("patch diff = %+v", d)
	}
	if l := p[1].Locations; len(l) != 1 || l[0].Line == nil || *l[0].Line != 2 {
		t.Errorf("patch locations = %+v; want line 2", l)
	}
	var plan []string
	for _, u := range edit.Updates {
		for _, e := range u.Entries {
			plan = append(plan, e.Status+":"+e.Priority+":"+e.Content)
		}
	}
	if strings.Join(plan, ", ") != "completed:low:write notes, in_progress:high:review them" {
		t.Errorf("plan = %q", plan)
	}

	deny := steps[3]
	if len(deny.Asked) != 1 || strings.Join(deny.Asked[0].Options, ",") != "once,deny" || !strings.Contains(deny.Asked[0].Title, filepath.Join(outside, "rejected.txt")) {
		t.Errorf("reject: asked %+v", deny.Asked)
	}
	if u := toolUpdate(t, deny); u.Status != "failed" || !strings.Contains(u.Text, "outside the working directory") {
		t.Errorf("reject: update %+v", u)
	}
	if _, err := os.Stat(filepath.Join(outside, "rejected.txt")); !os.IsNotExist(err) {
		t.Errorf("the rejected write happened: %v", err)
	}
	if got := lastToolResult(t, srv, 5); !strings.Contains(got, "denied") {
		t.Errorf("the model was told %q", got)
	}
	allow := steps[4]
	if len(allow.Asked) != 1 || toolUpdate(t, allow).Status != "completed" {
		t.Errorf("allow once: asked %+v, update %+v", allow.Asked, toolUpdate(t, allow))
	}
	if data, err := os.ReadFile(filepath.Join(outside, "allowed.txt")); err != nil || string(data) != "y" {
		t.Errorf("the write allowed once: %q, %v", data, err)
	}
}

// TestACPClientFileSystemWithOfficialClient has the official client offer
// fs/read_text_file and fs/write_text_file with an unsaved buffer open:
// read_file and patch see the buffer, and the patched text is written
// through the client.
func TestACPClientFileSystemWithOfficialClient(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	main := filepath.Join(work, "main.go")
	if err := os.WriteFile(main, []byte("package disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("r1", "read_file", map[string]any{"path": "main.go"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("p1", "patch", map[string]any{"path": "main.go", "old_string": "package buffer", "new_string": "package edited"})}},
		llmtest.Reply{Text: "Done."},
	)
	steps := acpRunPlan(t, h, srv, work, map[string]any{"fs": map[string]any{"buffers": map[string]string{main: "package buffer\n"}}},
		map[string]any{"op": "initialize"},
		map[string]any{"op": "new"},
		map[string]any{"op": "prompt", "text": "edit main"},
	)
	if got := lastToolResult(t, srv, 1); !strings.Contains(got, "package buffer") {
		t.Errorf("read_file gave %q; want the editor's buffer", got)
	}
	turn := steps[2]
	if len(turn.FsReads) < 2 || turn.FsReads[0] != main || strings.Join(turn.FsWrites, " ") != main {
		t.Errorf("client reads %q, writes %q; want %s read and written through the client", turn.FsReads, turn.FsWrites, main)
	}
	if data, _ := os.ReadFile(main); string(data) != "package edited\n" {
		t.Errorf("main.go = %q; want the buffer's text patched", data)
	}
}
