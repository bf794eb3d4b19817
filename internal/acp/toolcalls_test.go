package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// started returns the tool_call update of call id, or fails.
func (c *client) started(t *testing.T, id string) *acpsdk.SessionUpdateToolCall {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range c.raw {
		if u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id {
			return u.ToolCall
		}
	}
	t.Fatalf("no tool_call %s in %q", id, c.updates)
	return nil
}

// finishedCall returns the tool_call_update that finished call id, or
// fails.
func (c *client) finishedCall(t *testing.T, id string) *acpsdk.SessionToolCallUpdate {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range c.raw {
		if u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil {
			return u.ToolCallUpdate
		}
	}
	t.Fatalf("no tool_call_update %s in %q", id, c.updates)
	return nil
}

// plans returns the plans sent, each as "status:priority:content" items.
func (c *client) plans() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.raw {
		if u.Plan == nil {
			continue
		}
		var items []string
		for _, e := range u.Plan.Entries {
			items = append(items, fmt.Sprintf("%s:%s:%s", e.Status, e.Priority, e.Content))
		}
		out = append(out, strings.Join(items, ", "))
	}
	return out
}

// locs shows locations as path:line.
func locs(ls []acpsdk.ToolCallLocation) string {
	var out []string
	for _, l := range ls {
		s := l.Path
		if l.Line != nil {
			s += fmt.Sprintf(":%d", *l.Line)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestFileToolCallsCarryDiffsAndLocations runs a turn whose model writes
// a new file, patches it, reads it from a line and searches it, and
// checks what the editor is told of each call: its kind, the files and
// lines it is about, and for the edits an ACP diff whose oldText is
// absent for the new file and the old content for the patch.
func TestFileToolCallsCarryDiffsAndLocations(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("w1", "write_file", map[string]any{"path": "notes.txt", "content": "one\ntwo\nthree\n"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("p1", "patch", map[string]any{"path": "notes.txt", "old_string": "three", "new_string": "THREE"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("r1", "read_file", map[string]any{"path": filepath.Join(dir, "notes.txt"), "offset": 2})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("s1", "search_files", map[string]any{"pattern": "THREE"})}},
		llmtest.Reply{Text: "Done."},
	)
	r := newEngineRig(t, srv, t.TempDir())
	id := r.newSession(t, dir)
	if _, err := r.prompt(id, "edit notes"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes.txt")
	for _, c := range []struct{ id, kind, locs string }{
		{"w1", "edit", file},
		{"p1", "edit", file},
		{"r1", "read", file + ":2"},
		{"s1", "search", dir},
	} {
		tc := r.cli.started(t, c.id)
		if string(tc.Kind) != c.kind || locs(tc.Locations) != c.locs {
			t.Errorf("tool_call %s: kind %q, locations %q; want %q, %q", c.id, tc.Kind, locs(tc.Locations), c.kind, c.locs)
		}
	}
	w := r.cli.finishedCall(t, "w1")
	if len(w.Content) != 2 || w.Content[0].Diff == nil {
		t.Fatalf("write_file update content = %+v; want a diff, then the result", w.Content)
	}
	if d := w.Content[0].Diff; d.Path != file || d.OldText != nil || d.NewText != "one\ntwo\nthree\n" {
		t.Errorf("write_file diff = %+v; want the new file with no oldText", d)
	}
	p := r.cli.finishedCall(t, "p1")
	if len(p.Content) != 2 || p.Content[0].Diff == nil {
		t.Fatalf("patch update content = %+v; want a diff, then the result", p.Content)
	}
	if d := p.Content[0].Diff; d.OldText == nil || *d.OldText != "one\ntwo\nthree\n" || d.NewText != "one\ntwo\nTHREE\n" {
		t.Errorf("patch diff = %+v", d)
	}
	if got := locs(p.Locations); got != file+":3" {
		t.Errorf("patch locations = %q; want the changed line %s:3", got, file)
	}
	if got := locs(r.cli.finishedCall(t, "s1").Locations); got != file+":3" {
		t.Errorf("search locations = %q; want the hit %s:3", got, file)
	}
	if rd := r.cli.finishedCall(t, "r1"); len(rd.Content) != 1 || rd.Content[0].Diff != nil {
		t.Errorf("read_file update = %+v; want its text only", rd.Content)
	}
}

// TestLargeFileDiffIsTold checks that a change to a file over the diff
// cap reaches the editor as a line naming the file, its size and the
// cap, not as a diff carrying the whole file.
func TestLargeFileDiffIsTold(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", maxDiffText) + "\nend\n"
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("p1", "patch", map[string]any{"path": "big.txt", "old_string": "end", "new_string": "END"})}},
		llmtest.Reply{Text: "Done."},
	)
	r := newEngineRig(t, srv, t.TempDir())
	id := r.newSession(t, dir)
	if _, err := r.prompt(id, "edit big"); err != nil {
		t.Fatal(err)
	}
	p := r.cli.finishedCall(t, "p1")
	if len(p.Content) != 2 || p.Content[0].Diff != nil || p.Content[0].Content == nil {
		t.Fatalf("content = %+v; want a line instead of the diff", p.Content)
	}
	want := fmt.Sprintf("is %d bytes, over the %d", len(big), maxDiffText)
	if got := p.Content[0].Content.Content.Text.Text; !strings.Contains(got, want) || !strings.Contains(got, "big.txt") {
		t.Errorf("line = %q; want the file and %q", got, want)
	}
}

// TestPlanFollowsTodo checks that each todo call that changes the list
// sends the whole list as the session's plan, and that reading it
// unchanged sends nothing.
func TestPlanFollowsTodo(t *testing.T) {
	srv := llmtest.New(t)
	items := func(s1, s2, s3 string) map[string]any {
		return map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "read the code", "status": s1},
			{"id": "2", "content": "fix the bug", "status": s2},
			{"id": "3", "content": "write docs", "status": s3},
		}}
	}
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("t1", "todo", items("in_progress", "pending", "pending"))}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("t2", "todo", map[string]any{})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("t3", "todo", items("completed", "in_progress", "cancelled"))}},
		llmtest.Reply{Text: "Done."},
	)
	r := newEngineRig(t, srv, t.TempDir())
	id := r.newSession(t, t.TempDir())
	if _, err := r.prompt(id, "plan it"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"in_progress:high:read the code, pending:medium:fix the bug, pending:medium:write docs",
		"completed:low:read the code, in_progress:high:fix the bug",
	}
	if got := r.cli.plans(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tc := r.cli.started(t, "t1"); tc.Kind != acpsdk.ToolKindThink {
		t.Errorf("todo kind = %q; want think", tc.Kind)
	}
}

// TestSearchHit checks which lines of a content search name a file and
// line: a colon in the file's name does not cut it short.
func TestSearchHit(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		line int
		ok   bool
	}{
		{"a.go:12: func main()", "a.go", 12, true},
		{"dir:1/b.go:3: x: 4: y", "dir:1/b.go", 3, true},
		{"c.go-4- context", "", 0, false},
		{"src/d.go", "", 0, false},
		{":5: no name", "", 0, false},
	} {
		name, line, ok := searchHit(c.in)
		if ok != c.ok || ok && (name != c.name || line != c.line) {
			t.Errorf("searchHit(%q) = %q, %d, %v; want %q, %d, %v", c.in, name, line, ok, c.name, c.line, c.ok)
		}
	}
}
