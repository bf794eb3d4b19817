package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
)

func TestWriteFile(t *testing.T) {
	f := newFixture(t, Options{})
	r := f.mustCall("write_file", m{"path": "a/b/new.txt", "content": "你好\n"}).(WriteResult)
	if r.Action != "created" || r.BytesWritten != len("你好\n") || r.Path != "a/b/new.txt" {
		t.Errorf("create = %+v", r)
	}
	if got := f.read("a/b/new.txt"); got != "你好\n" {
		t.Errorf("content = %q", got)
	}

	p := f.write("script.sh", "old")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	r = f.mustCall("write_file", m{"path": p, "content": "new\r\nline"}).(WriteResult)
	if r.Action != "replaced" || r.BytesWritten != 9 {
		t.Errorf("replace = %+v", r)
	}
	if got := f.read("script.sh"); got != "new\r\nline" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750 kept", fi.Mode().Perm())
	}

	r = f.mustCall("write_file", m{"path": "empty.txt", "content": ""}).(WriteResult)
	if r.Action != "created" || f.read("empty.txt") != "" {
		t.Errorf("empty = %+v", r)
	}

	// No temporary files are left behind.
	entries, _ := os.ReadDir(f.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	_, err := f.call("write_file", m{"path": "a", "content": "x"})
	wantCode(t, err, tool.CodeInvalidArguments, "directory")
	_, err = f.call("write_file", m{"path": "x.txt"})
	wantCode(t, err, tool.CodeInvalidArguments, "content")
}

func TestWriteFileFollowsLink(t *testing.T) {
	f := newFixture(t, Options{})
	target := f.write("real.txt", "old")
	link := filepath.Join(f.dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	f.mustCall("write_file", m{"path": "link.txt", "content": "new"})
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced by a file: %v %v", fi, err)
	}
	if got := f.read("real.txt"); got != "new" {
		t.Errorf("target = %q", got)
	}
}

func TestWriteGuarded(t *testing.T) {
	f := newFixture(t, Options{})
	ssh := filepath.Join(f.home, ".ssh")
	if err := os.MkdirAll(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(ssh, "authorized_keys")
	if err := os.WriteFile(ak, []byte("key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ssh, filepath.Join(f.dir, "keys")); err != nil {
		t.Skip(err)
	}
	tests := []struct {
		name string
		args m
	}{
		{"write_file", m{"path": "~/.ssh/authorized_keys", "content": "evil"}},
		{"write_file", m{"path": "keys/authorized_keys", "content": "evil"}},
		{"write_file", m{"path": "keys/new", "content": "evil"}},
		{"write_file", m{"path": "~/.bashrc", "content": "evil"}},
		{"write_file", m{"path": ".env", "content": "A=1"}},
		{"patch", m{"path": "keys/authorized_keys", "old_string": "key", "new_string": "evil"}},
	}
	for _, tt := range tests {
		_, err := f.call(tt.name, tt.args)
		wantCode(t, err, tool.CodeDenied, "edit the file themselves")
	}
	if b, _ := os.ReadFile(ak); string(b) != "key\n" {
		t.Errorf("authorized_keys changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ssh, "new")); err == nil {
		t.Error("file created in ~/.ssh")
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".env")); err == nil {
		t.Error(".env created")
	}
	f.mustCall("write_file", m{"path": ".env.example", "content": "A="})
}

func TestWriteSafeRoot(t *testing.T) {
	root := t.TempDir()
	f := newFixture(t, Options{Guard: writeguard.Guard{SafeRoots: []string{root}}})
	_, err := f.call("write_file", m{"path": "x.txt", "content": "x"})
	wantCode(t, err, tool.CodeDenied, "HERMES_WRITE_SAFE_ROOT")
	f.mustCall("write_file", m{"path": filepath.Join(root, "x.txt"), "content": "x"})
}

// TestSpecs registers the tools as the agent does, and checks that the
// dispatcher's validation applies the schemas' defaults and bounds.
func TestSpecs(t *testing.T) {
	reg := tool.NewRegistry()
	for _, tl := range New(Options{}) {
		if err := reg.Register(tl); err != nil {
			t.Fatalf("%s: %v", tl.Spec().Name, err)
		}
		s := tl.Spec()
		if s.Toolset != Toolset || s.Description == "" {
			t.Errorf("%s: spec %+v", s.Name, s)
		}
		if writes := s.Name == "write_file" || s.Name == "patch"; writes != (s.PathArg == "path") || writes == s.ParallelSafe {
			t.Errorf("%s: PathArg %q ParallelSafe %v", s.Name, s.PathArg, s.ParallelSafe)
		}
	}
	if _, err := reg.Prepare("read_file", `{"path": "x", "offset": 0}`); err == nil {
		t.Error("offset 0 accepted")
	}
	if _, err := reg.Prepare("search_files", `{"pattern": "x", "target": "dirs"}`); err == nil {
		t.Error("unknown target accepted")
	}
	if _, err := reg.Prepare("patch", `{"path": "x", "old_string": "a", "new_string": "b", "replace_all": "true"}`); err != nil {
		t.Errorf("patch with a string boolean: %v", err)
	}
}
