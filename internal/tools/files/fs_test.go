package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// osFS is FS over the local filesystem, with a fixed workdir and home,
// to check the tools give the same answers through an FS.
type osFS struct{ wd, home string }

func (f osFS) Home(context.Context) (string, error)    { return f.home, nil }
func (f osFS) Workdir(context.Context) (string, error) { return f.wd, nil }

func (f osFS) Stat(_ context.Context, name string) (FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{IsDir: fi.IsDir(), Regular: fi.Mode().IsRegular(), Size: fi.Size(), Mode: fi.Mode().Perm()}, nil
}

func (f osFS) ReadFile(_ context.Context, name string, max int64) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err == nil && int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
	}
	return data, err
}

func (f osFS) WriteFile(_ context.Context, name string, data []byte) (bool, error) {
	return writeAtomic(name, data)
}

func (f osFS) ReadDir(ctx context.Context, name string) ([]DirEntry, error) {
	entries, err := os.ReadDir(name)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, len(entries))
	for i, e := range entries {
		out[i] = DirEntry{Name: e.Name(), Link: e.Type()&os.ModeSymlink != 0}
		out[i].Info, _ = f.Stat(ctx, filepath.Join(name, e.Name()))
		if out[i].Link {
			out[i].Info.Size = 0 // as the remote FS, which does not know it
		}
	}
	return out, nil
}

func (f osFS) Realpath(_ context.Context, name string) (string, error) {
	if real, err := filepath.EvalSymlinks(name); err == nil {
		return real, nil
	}
	return name, nil
}

// batchOSFS adds BatchFS to osFS.
type batchOSFS struct {
	osFS
	requests *int
}

func (f batchOSFS) ReadDirs(ctx context.Context, names []string) ([][]DirEntry, error) {
	*f.requests++
	out := make([][]DirEntry, len(names))
	for i, n := range names {
		out[i], _ = f.ReadDir(ctx, n)
	}
	return out, nil
}

func (f batchOSFS) ReadFiles(ctx context.Context, names []string, max int64) ([][]byte, error) {
	*f.requests++
	out := make([][]byte, len(names))
	for i, n := range names {
		if fi, err := os.Stat(n); err == nil && fi.Mode().IsRegular() {
			out[i], _ = f.ReadFile(ctx, n, max)
		}
	}
	return out, nil
}

func (f batchOSFS) Exist(_ context.Context, names []string) ([]bool, error) {
	*f.requests++
	out := make([]bool, len(names))
	for i, n := range names {
		_, err := os.Stat(n)
		out[i] = err == nil
	}
	return out, nil
}

// outcome is a call's result or error code and message, for comparing.
func outcome(v any, err error) string {
	if err != nil {
		if te, ok := tool.AsError(err); ok {
			return "error " + string(te.Code) + ": " + te.Message
		}
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFSMatchesLocal runs the same calls on the local filesystem, through
// an FS and through a BatchFS, and wants the same answers.
func TestFSMatchesLocal(t *testing.T) {
	calls := []struct {
		name string
		args m
	}{
		{"search_files", m{"pattern": `Parse\b`}},
		{"search_files", m{"pattern": "Parse", "file_glob": "*.go", "limit": 2}},
		{"search_files", m{"pattern": "Parse", "path": "docs", "file_glob": "*.{md,txt}"}},
		{"search_files", m{"pattern": "Parse", "context": 1}},
		{"search_files", m{"pattern": "Parse", "limit": 3}},
		{"search_files", m{"pattern": "nothing-like-this"}},
		{"search_files", m{"pattern": "func", "path": "parse.go"}},
		{"search_files", m{"pattern": "*.go", "target": "files"}},
		{"search_files", m{"pattern": "**/*.md", "target": "files"}},
		{"search_files", m{"pattern": "*.{md,txt}", "target": "files"}},
		{"search_files", m{"pattern": "*", "target": "files", "path": "sub"}},
		{"search_files", m{"pattern": "x", "path": "no/such"}},
		{"read_file", m{"path": "main.go"}},
		{"read_file", m{"path": "big.txt", "offset": 10, "limit": 5}},
		{"read_file", m{"path": "blob.bin"}},
		{"read_file", m{"path": "docs"}},
		{"read_file", m{"path": "mian.go"}},
		{"read_file", m{"path": "link.go"}},
		{"patch", m{"path": "parse.go", "old_string": "input", "new_string": "output"}},
		{"patch", m{"path": "parse.go", "old_string": "absent", "new_string": "x"}},
		{"patch", m{"path": "docs", "old_string": "a", "new_string": "b"}},
		{"patch", m{"path": "nope.go", "old_string": "a", "new_string": "b"}},
		{"write_file", m{"path": "new/dir/f.txt", "content": "one\n"}},
		{"write_file", m{"path": "main.go", "content": "package main\n"}},
		{"write_file", m{"path": "~/.ssh/authorized_keys", "content": "x\n"}},
		{"write_file", m{"path": "docs", "content": "x\n"}},
		{"read_file", m{"path": "parse.go"}},
	}
	run := func(fsys func(f *fixture) FS) []string {
		f := searchFixture(t)
		f.write(".git/HEAD", "ref\n")
		if err := os.Symlink("main.go", filepath.Join(f.dir, "link.go")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("docs", filepath.Join(f.dir, "linkdir")); err != nil {
			t.Fatal(err)
		}
		if fsys != nil {
			o := Options{MaxSearchBytes: 1000, FS: fsys(f)}
			o.Guard.Home = "/elsewhere" // the FS's home must be the one used
			f.tools = map[string]tool.Tool{}
			for _, tl := range New(o) {
				f.tools[tl.Spec().Name] = tl
			}
		}
		var out []string
		for _, c := range calls {
			out = append(out, outcome(f.call(c.name, c.args)))
		}
		// Ancestor .gitignore files, searching below the repository.
		out = append(out, outcome(f.call("search_files", m{"pattern": "*.go", "target": "files", "path": "sub"})))
		return out
	}
	local := run(nil)
	plain := run(func(f *fixture) FS { return osFS{wd: f.dir, home: f.home} })
	requests := 0
	batch := run(func(f *fixture) FS { return batchOSFS{osFS{wd: f.dir, home: f.home}, &requests} })
	for i := range local {
		name := "ancestor search"
		if i < len(calls) {
			name = fmt.Sprintf("%s %v", calls[i].name, calls[i].args)
		}
		// Paths differ only by the temporary directories.
		if normal(local[i]) != normal(plain[i]) {
			t.Errorf("%s:\nlocal: %s\nFS:    %s", name, local[i], plain[i])
		}
		if normal(local[i]) != normal(batch[i]) {
			t.Errorf("%s:\nlocal:   %s\nBatchFS: %s", name, local[i], batch[i])
		}
	}
	if testing.Verbose() {
		for i := range batch {
			t.Log(normal(batch[i]))
		}
	}
	if requests == 0 {
		t.Error("the BatchFS was not used")
	}
}

// normal hides the temporary directory names in an outcome.
func normal(s string) string {
	return tempDirRE.ReplaceAllString(s, "TMP")
}

var tempDirRE = regexp.MustCompile(`/tmp/[^/"\\ ]+/[0-9]+`)

// linkedFS is an osFS on which one path is a link to another, as only the
// FS knows (a remote host's link).
type linkedFS struct {
	osFS
	from, to string
}

func (f linkedFS) Realpath(ctx context.Context, name string) (string, error) {
	if name == f.from {
		return f.to, nil
	}
	return f.osFS.Realpath(ctx, name)
}

func TestFSGuardFollowsLinks(t *testing.T) {
	f := newFixture(t, Options{})
	from := filepath.Join(f.dir, "innocent.txt")
	fsys := linkedFS{osFS{wd: f.dir, home: "/remote/home"}, from, "/remote/home/.ssh/authorized_keys"}
	f.tools = map[string]tool.Tool{}
	for _, tl := range New(Options{FS: fsys}) {
		f.tools[tl.Spec().Name] = tl
	}
	_, err := f.call("write_file", m{"path": "innocent.txt", "content": "x\n"})
	wantCode(t, err, tool.CodeDenied, "authorized_keys", "leads to")
	if _, err := os.Stat(from); err == nil {
		t.Fatal("the file was written despite the guard")
	}
	_, err = f.call("write_file", m{"path": "~/.bashrc", "content": "x\n"})
	wantCode(t, err, tool.CodeDenied, "/remote/home/.bashrc")
	f.mustCall("write_file", m{"path": "other.txt", "content": "x\n"})
}
