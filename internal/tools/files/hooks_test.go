package files

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// editor is an editor holding files open: buffers maps paths to unsaved
// text; writes land on disk and are recorded.
type editor struct {
	mu      sync.Mutex
	buffers map[string]string
	writes  []string
	fail    bool
}

func (e *editor) read(_ context.Context, p string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.buffers[p]; ok {
		return b, nil
	}
	data, err := os.ReadFile(p)
	return string(data), err
}

func (e *editor) write(_ context.Context, p, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail {
		return errors.New("buffer is read-only")
	}
	e.writes = append(e.writes, p)
	return os.WriteFile(p, []byte(content), 0o644)
}

// callHooked runs a tool with hooks and approver in its context.
func (f *fixture) callHooked(h Hooks, ap tool.Approver, name string, args any) (any, error) {
	f.t.Helper()
	raw, _ := json.Marshal(args)
	ctx := tool.WithInvocation(WithHooks(context.Background(), h), tool.Invocation{SessionID: "s", CallID: "c9", Workdir: f.dir, Approver: ap})
	return f.tools[name].Call(ctx, raw)
}

// TestHooksHearChanges checks that write_file and patch report each
// change with its old and new content and first changed line, a new file
// with no old content, and that a failed call reports nothing.
func TestHooksHearChanges(t *testing.T) {
	f := newFixture(t, Options{})
	var got []Change
	h := Hooks{Changed: func(c Change) { got = append(got, c) }}
	f.write("a.txt", "1\n2\n3\n")
	for _, c := range []struct {
		name string
		args m
	}{
		{"write_file", m{"path": "new.txt", "content": "x\n"}},
		{"write_file", m{"path": "a.txt", "content": "1\n2\nthree\n"}},
		{"patch", m{"path": "a.txt", "old_string": "2", "new_string": "two"}},
		{"patch", m{"path": "a.txt", "old_string": "missing", "new_string": "x"}},
	} {
		_, _ = f.callHooked(h, nil, c.name, c.args)
	}
	if len(got) != 3 {
		t.Fatalf("changes = %+v; want three", got)
	}
	if c := got[0]; !c.Created || c.Old != nil || c.New != "x\n" || c.CallID != "c9" || c.Path != filepath.Join(f.dir, "new.txt") {
		t.Errorf("created = %+v", c)
	}
	if c := got[1]; c.Created || c.Old == nil || *c.Old != "1\n2\n3\n" || c.Line != 3 {
		t.Errorf("replaced = %+v", c)
	}
	if c := got[2]; c.Old == nil || *c.Old != "1\n2\nthree\n" || c.New != "1\ntwo\nthree\n" || c.Line != 2 {
		t.Errorf("patched = %+v", c)
	}
}

// TestHooksCarryReadsAndWrites checks that read_file and patch see the
// editor's unsaved buffer, that write_file and patch write through the
// editor, following a link and creating parent directories, and that an
// editor's failed write is an error naming the file.
func TestHooksCarryReadsAndWrites(t *testing.T) {
	f := newFixture(t, Options{})
	p := f.write("a.txt", "on disk\n")
	ed := &editor{buffers: map[string]string{p: "unsaved buffer\n"}}
	h := Hooks{ReadText: ed.read, WriteText: ed.write}
	res, err := f.callHooked(h, nil, "read_file", m{"path": "a.txt"})
	if err != nil || !strings.Contains(res.(ReadResult).Content, "unsaved buffer") {
		t.Errorf("read_file = %+v, %v; want the buffer", res, err)
	}
	if _, err := f.callHooked(h, nil, "patch", m{"path": "a.txt", "old_string": "unsaved", "new_string": "saved"}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt"); got != "saved buffer\n" {
		t.Errorf("patched through the editor: %q", got)
	}
	if err := os.Symlink(p, filepath.Join(f.dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.callHooked(h, nil, "write_file", m{"path": "link.txt", "content": "via link\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.callHooked(h, nil, "write_file", m{"path": "d/e/new.txt", "content": "new\n"}); err != nil {
		t.Fatal(err)
	}
	want := []string{p, p, filepath.Join(f.dir, "d/e/new.txt")}
	if strings.Join(ed.writes, " ") != strings.Join(want, " ") || f.read("a.txt") != "via link\n" {
		t.Errorf("editor writes = %q; want %q", ed.writes, want)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	ed.fail = true
	_, err = f.callHooked(h, nil, "write_file", m{"path": "a.txt", "content": "y"})
	wantCode(t, err, tool.CodeInternal, "the editor could not write", p, "read-only")
}

// denyWrites is an approver that refuses every write and counts them.
type denyWrites struct{ asked []string }

func (d *denyWrites) ApproveCommand(context.Context, string) error { return nil }
func (d *denyWrites) ApproveWrite(_ context.Context, p string) error {
	d.asked = append(d.asked, p)
	return errors.New("writing " + p + " denied: the user denied it")
}

// TestWritesAskTheApprover checks that write_file and patch put the
// path to an approver that judges writes, after the guard and before
// the file changes, and report its refusal as denied.
func TestWritesAskTheApprover(t *testing.T) {
	f := newFixture(t, Options{})
	p := f.write("a.txt", "old\n")
	ap := &denyWrites{}
	_, err := f.callHooked(Hooks{}, ap, "write_file", m{"path": "a.txt", "content": "new\n"})
	wantCode(t, err, tool.CodeDenied, "denied")
	_, err = f.callHooked(Hooks{}, ap, "patch", m{"path": "a.txt", "old_string": "old", "new_string": "new"})
	wantCode(t, err, tool.CodeDenied, "denied")
	_, err = f.callHooked(Hooks{}, ap, "write_file", m{"path": filepath.Join(f.home, ".ssh", "id_rsa"), "content": "x"})
	wantCode(t, err, tool.CodeDenied, "not allowed")
	if f.read("a.txt") != "old\n" || strings.Join(ap.asked, " ") != p+" "+p {
		t.Errorf("content %q, asked %q; want unchanged and asked twice about %s, never about the guarded path", f.read("a.txt"), ap.asked, p)
	}
}
