package gitignore

import (
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"**/x", "x", true},
		{"**/x", "a/b/x", true},
		{"a/**/x", "a/x", true},
		{"a/**", "a/b/c", true},
		{"a/**", "a", false},
		{"a/*/x", "a/b/c/x", false},
		{"*.go", "a.go", true},
		{"*.go", "d/a.go", false},
		{"*.{go,md}", "a.md", true},
	}
	for _, tt := range tests {
		g, err := CompileGlob(tt.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(tt.path); got != tt.want {
			t.Errorf("%q matches %q = %v", tt.pat, tt.path, got)
		}
	}
}

// TestIgnored: rules of nested .gitignore files apply below their
// directory, the last matching rule decides, and a trailing "/" matches
// directories only.
func TestIgnored(t *testing.T) {
	root := Parse("/r", strings.NewReader("*.log\nbuild/\n!keep.log\n"))
	sub := Parse("/r/sub", strings.NewReader("secret.md\n"))
	stack := []*File{root, sub}
	for _, tt := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"/r/a.log", false, true},
		{"/r/keep.log", false, false},
		{"/r/build", true, true},
		{"/r/build", false, false},
		{"/r/sub/secret.md", false, true},
		{"/r/secret.md", false, false},
		{"/r/sub/x/y.log", false, true},
	} {
		if got := Ignored(stack, tt.path, tt.dir); got != tt.want {
			t.Errorf("Ignored(%s, dir=%v) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}
