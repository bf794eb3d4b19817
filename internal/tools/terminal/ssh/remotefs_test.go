//go:build unix

package ssh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/files"
	"github.com/hermes-go/hermes/internal/tools/terminal"
	"github.com/hermes-go/hermes/internal/tools/terminal/ssh/sshtest"
)

// fileTools returns the file tools by name, working on fsys.
func fileTools(fsys files.FS) map[string]tool.Tool {
	// The local home must not matter: the guard uses the remote one.
	tools := files.New(files.Options{FS: fsys, Guard: writeguard.Guard{Home: "/nonexistent-local-home"}})
	m := map[string]tool.Tool{}
	for _, tl := range tools {
		m[tl.Spec().Name] = tl
	}
	return m
}

func readLocal(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSSHFileTools(t *testing.T) {
	s := sshtest.Start(t)
	base := realDir(t, t.TempDir())
	for _, d := range []string{"sub", "src", "ignored", "bin"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr, b := newSSHTerminal(t, s, terminal.Options{}, base)
	ft := fileTools(b.FileSystem())

	// write_file creates, relative to the remote directory, and keeps the
	// mode of a file it replaces.
	w := must[files.WriteResult](t, ft["write_file"], "s1", map[string]any{"path": "a.txt", "content": "hello\nworld\n"})
	if w.Action != "created" || w.Path != "a.txt" || w.BytesWritten != 12 {
		t.Fatalf("write_file: %+v", w)
	}
	if got := readLocal(t, filepath.Join(base, "a.txt")); got != "hello\nworld\n" {
		t.Fatalf("written content %q", got)
	}
	if err := os.Chmod(filepath.Join(base, "a.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	w = must[files.WriteResult](t, ft["write_file"], "s1", map[string]any{"path": "a.txt", "content": "hello\nthere\n"})
	if w.Action != "replaced" {
		t.Fatalf("second write_file: %+v", w)
	}
	if fi, err := os.Stat(filepath.Join(base, "a.txt")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode after replace: %v, %v", fi.Mode(), err)
	}
	must[any](t, ft["write_file"], "s1", map[string]any{"path": "new/dir/n.txt", "content": ""})
	if got := readLocal(t, filepath.Join(base, "new", "dir", "n.txt")); got != "" {
		t.Fatalf("n.txt = %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(base, ".*.tmp-*")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}

	// read_file.
	r := must[files.ReadResult](t, ft["read_file"], "s1", map[string]any{"path": "a.txt"})
	if r.Content != "1|hello\n2|there" || r.TotalLines != 2 || r.Path != "a.txt" {
		t.Fatalf("read_file: %+v", r)
	}
	r = must[files.ReadResult](t, ft["read_file"], "s1", map[string]any{"path": filepath.Join(base, "a.txt"), "offset": 2})
	if r.Content != "2|there" {
		t.Fatalf("read_file offset: %+v", r)
	}
	_, err := call(ft["read_file"], "s1", map[string]any{"path": "a.tx"})
	if te := wantCode(t, err, tool.CodeNotFound); !strings.Contains(te.Message, "Did you mean: "+filepath.Join(base, "a.txt")) {
		t.Fatalf("not found message: %s", te.Message)
	}
	_, err = call(ft["read_file"], "s1", map[string]any{"path": "sub"})
	wantCode(t, err, tool.CodeInvalidArguments)
	if err := os.WriteFile(filepath.Join(base, "bin", "blob"), []byte{0, 1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = call(ft["read_file"], "s1", map[string]any{"path": "bin/blob"})
	wantCode(t, err, tool.CodeInvalidArguments)

	// After a cd by the terminal, relative paths start in the new
	// directory, for that session only.
	mustRun(t, tr, "s1", "cd sub")
	must[any](t, ft["write_file"], "s1", map[string]any{"path": "b.txt", "content": "one\ntwo\nthree\n"})
	if got := readLocal(t, filepath.Join(base, "sub", "b.txt")); got != "one\ntwo\nthree\n" {
		t.Fatalf("sub/b.txt = %q", got)
	}
	r = must[files.ReadResult](t, ft["read_file"], "s1", map[string]any{"path": "../a.txt"})
	if r.Content != "1|hello\n2|there" || r.Path != filepath.Join(base, "a.txt") {
		t.Fatalf("read_file ../a.txt: %+v", r)
	}
	if _, err := call(ft["read_file"], "s2", map[string]any{"path": "b.txt"}); err == nil {
		t.Fatal("session s2 resolved b.txt in s1's directory")
	}

	// patch.
	p := must[files.PatchResult](t, ft["patch"], "s1", map[string]any{"path": "b.txt", "old_string": "two", "new_string": "TWO"})
	if p.Replacements != 1 || !strings.Contains(p.Diff, "-two\n+TWO\n") || p.Path != "b.txt" {
		t.Fatalf("patch: %+v", p)
	}
	if got := readLocal(t, filepath.Join(base, "sub", "b.txt")); got != "one\nTWO\nthree\n" {
		t.Fatalf("patched b.txt = %q", got)
	}
	_, err = call(ft["patch"], "s1", map[string]any{"path": "b.txt", "old_string": "absent", "new_string": "x"})
	wantCode(t, err, tool.CodeInvalidArguments)
	_, err = call(ft["patch"], "s1", map[string]any{"path": "nope.txt", "old_string": "a", "new_string": "b"})
	wantCode(t, err, tool.CodeNotFound)

	// search_files honours .gitignore.
	for name, content := range map[string]string{
		".gitignore":      "ignored/\n*.log\n",
		"src/x.go":        "package x\n// needle here\n",
		"src/y.txt":       "no match\n",
		"ignored/y.go":    "needle\n",
		"z.log":           "needle\n",
		"src/space d.go":  "another needle\n",
		"src/.hidden.txt": "needle too\n",
	} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sr := must[files.SearchResult](t, ft["search_files"], "s2", map[string]any{"pattern": "needle", "file_glob": "*.go"})
	if sr.Results != "src/space d.go:1: another needle\nsrc/x.go:2: // needle here" || sr.Total != 2 {
		t.Fatalf("content search: %+v", sr)
	}
	sr = must[files.SearchResult](t, ft["search_files"], "s2", map[string]any{"pattern": "needle"})
	if sr.Total != 3 || strings.Contains(sr.Results, "ignored/") || strings.Contains(sr.Results, "z.log") {
		t.Fatalf("content search without glob: %+v", sr)
	}
	sr = must[files.SearchResult](t, ft["search_files"], "s1", map[string]any{"pattern": "*.go", "target": "files", "path": ".."})
	want := filepath.Join(base, "src", "space d.go") + "\n" + filepath.Join(base, "src", "x.go")
	if sr.Results != want {
		t.Fatalf("files search: %+v, want %q", sr, want)
	}
	_, err = call(ft["search_files"], "s1", map[string]any{"pattern": "x", "path": "/no/such/dir"})
	wantCode(t, err, tool.CodeNotFound)

	// A link is followed: it stays and its target changes.
	if err := os.Symlink("a.txt", filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	must[any](t, ft["write_file"], "s2", map[string]any{"path": "alias", "content": "via link\n"})
	if got := readLocal(t, filepath.Join(base, "a.txt")); got != "via link\n" {
		t.Fatalf("link target = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(base, "alias")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi, err)
	}

	// The write guard uses the remote home: ~/.ssh is off limits, also
	// through a link.
	home, err := b.FileSystem().Home(context.Background())
	if err != nil || home == "" {
		t.Fatalf("remote home %q, %v", home, err)
	}
	_, err = call(ft["write_file"], "s1", map[string]any{"path": "~/.ssh/authorized_keys", "content": "ssh-ed25519 AAAA evil\n"})
	if te := wantCode(t, err, tool.CodeDenied); !strings.Contains(te.Message, filepath.Join(home, ".ssh", "authorized_keys")) {
		t.Fatalf("guard message: %s", te.Message)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(base, "keys")); err != nil {
		t.Fatal(err)
	}
	_, err = call(ft["patch"], "s2", map[string]any{"path": "keys", "old_string": "a", "new_string": "b"})
	wantCode(t, err, tool.CodeDenied)
}
