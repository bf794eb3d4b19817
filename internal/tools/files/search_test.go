package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

func searchFixture(t *testing.T) *fixture {
	f := newFixture(t, Options{MaxSearchBytes: 1000})
	f.write(".gitignore", "# build output\n*.log\n/build/\nnode_modules\n!keep.log\n")
	f.write("main.go", "package main\n\nfunc main() {\n\tParse()\n}\n")
	f.write("parse.go", "package main\n\n// Parse reads input.\nfunc Parse() {}\n")
	f.write("docs/guide.md", "# 指南\n\nCall Parse first.\r\n")
	f.write("docs/zh.txt", "你好 Parse 世界\n")
	f.write("app.log", "Parse log\n")
	f.write("keep.log", "Parse kept\n")
	f.write("build/out.go", "func Parse() {}\n")
	f.write("sub/build/gen.go", "func Parse() {}\n") // /build/ is anchored to the root
	f.write("node_modules/x/index.js", "Parse\n")
	f.write("sub/.gitignore", "secret.go\n")
	f.write("sub/secret.go", "func Parse() {}\n")
	f.write(".git/HEAD", "Parse\n")
	f.write("big.txt", strings.Repeat("Parse\n", 500))
	f.write("blob.bin", "Parse\x00\x01")
	return f
}

func TestSearchContent(t *testing.T) {
	f := searchFixture(t)
	r := f.mustCall("search_files", m{"pattern": `Parse\b`}).(SearchResult)
	want := strings.Join([]string{
		"docs/guide.md:3: Call Parse first.",
		"docs/zh.txt:1: 你好 Parse 世界",
		"keep.log:1: Parse kept",
		"main.go:4: \tParse()",
		"parse.go:3: // Parse reads input.",
		"parse.go:4: func Parse() {}",
		"sub/build/gen.go:1: func Parse() {}",
	}, "\n")
	if r.Results != want || r.Total != 7 || r.Shown != 7 || r.Note != "" {
		t.Errorf("results:\n%s\nwant:\n%s\n(%+v)", r.Results, want, r)
	}

	r = f.mustCall("search_files", m{"pattern": "Parse", "file_glob": "*.go", "limit": 2}).(SearchResult)
	if r.Shown != 2 || r.Total != 4 || !strings.Contains(r.Note, "2 more matches not shown") {
		t.Errorf("limited = %+v", r)
	}
	r = f.mustCall("search_files", m{"pattern": "Parse", "path": "docs", "file_glob": "*.{md,txt}"}).(SearchResult)
	if r.Total != 2 || !strings.HasPrefix(r.Results, "docs/guide.md:3:") {
		t.Errorf("subdirectory = %+v", r)
	}
	r = f.mustCall("search_files", m{"pattern": "nothing-like-this"}).(SearchResult)
	if r.Total != 0 || r.Note != "no matches" {
		t.Errorf("no match = %+v", r)
	}
	r = f.mustCall("search_files", m{"pattern": "(?i)^FUNC", "path": "parse.go"}).(SearchResult)
	if r.Results != "parse.go:4: func Parse() {}" {
		t.Errorf("single file = %+v", r)
	}

	_, err := f.call("search_files", m{"pattern": "Parse("})
	wantCode(t, err, tool.CodeInvalidArguments, "regular expression", "missing closing )")
	_, err = f.call("search_files", m{"pattern": "x", "target": "lines"})
	wantCode(t, err, tool.CodeInvalidArguments, "content")
	_, err = f.call("search_files", m{"pattern": "x", "path": "nowhere"})
	wantCode(t, err, tool.CodeNotFound)
}

func TestSearchContext(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("a.txt", "1\n2\nhit\n4\n5\n6\n7\nhit\nhit\n10\n")
	r := f.mustCall("search_files", m{"pattern": "hit", "context": 1}).(SearchResult)
	want := strings.Join([]string{
		"a.txt-2- 2",
		"a.txt:3: hit",
		"a.txt-4- 4",
		"--",
		"a.txt-7- 7",
		"a.txt:8: hit",
		"a.txt:9: hit",
		"a.txt-10- 10",
	}, "\n")
	if r.Results != want || r.Shown != 3 {
		t.Errorf("context:\n%s\nwant:\n%s", r.Results, want)
	}
}

func TestSearchFiles(t *testing.T) {
	f := searchFixture(t)
	tests := []struct {
		pattern string
		want    string
	}{
		{"*.go", "main.go\nparse.go\nsub/build/gen.go"},
		{"**/*.md", "docs/guide.md"},
		{"docs/*", "docs/guide.md\ndocs/zh.txt"},
		{"*.log", "keep.log"},
		{"*.{md,txt}", "big.txt\ndocs/guide.md\ndocs/zh.txt"},
		{"HEAD", ""},
	}
	for _, tt := range tests {
		r := f.mustCall("search_files", m{"pattern": tt.pattern, "target": "files"}).(SearchResult)
		if r.Results != tt.want {
			t.Errorf("files %q = %q, want %q", tt.pattern, r.Results, tt.want)
		}
	}
	_, err := f.call("search_files", m{"pattern": "[", "target": "files"})
	wantCode(t, err, tool.CodeInvalidArguments, "glob")
}

func TestSearchAncestorGitignore(t *testing.T) {
	f := newFixture(t, Options{})
	f.write(".git/HEAD", "ref\n")
	f.write(".gitignore", "*.gen.go\n")
	f.write("pkg/a.go", "x\n")
	f.write("pkg/a.gen.go", "x\n")
	r := f.mustCall("search_files", m{"pattern": "*.go", "target": "files", "path": "pkg"}).(SearchResult)
	if r.Results != "pkg/a.go" {
		t.Errorf("results = %q", r.Results)
	}
}

func TestSearchOutsideWorkdir(t *testing.T) {
	f := newFixture(t, Options{})
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "x.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.mustCall("search_files", m{"pattern": "needle", "path": other}).(SearchResult)
	if r.Results != filepath.Join(other, "x.txt")+":1: needle" {
		t.Errorf("results = %q", r.Results)
	}
}
