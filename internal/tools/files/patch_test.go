package files

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

func TestPatch(t *testing.T) {
	tests := []struct {
		name    string
		content string
		args    m
		want    string
		match   string
		n       int
	}{
		{"exact", "a\nb\nc\n", m{"old_string": "b", "new_string": "B"}, "a\nB\nc\n", "exact", 1},
		{"delete", "a\nb\nc\n", m{"old_string": "b\n", "new_string": ""}, "a\nc\n", "exact", 1},
		{"replace all", "x=1\nx=2\n", m{"old_string": "x", "new_string": "y", "replace_all": true}, "y=1\ny=2\n", "exact", 2},
		{"no trailing newline", "a\nb", m{"old_string": "b", "new_string": "c\nd"}, "a\nc\nd", "exact", 1},
		{"unicode", "你好，世界\n", m{"old_string": "世界", "new_string": "地球"}, "你好，地球\n", "exact", 1},
		{"crlf file, lf old_string", "a\r\nb\r\nc\r\n", m{"old_string": "a\nb\n", "new_string": "A\nB\n"}, "A\r\nB\r\nc\r\n", "exact", 1},
		{"indentation differs",
			"func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			m{"old_string": "if x {\n    return 1\n}", "new_string": "if x {\n    return 2\n}"},
			"func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n", "whitespace_tolerant", 1},
		{"new lines at other depths shifted",
			"\tif x {\n\t\treturn 1\n\t}\n",
			m{"old_string": "if x {\n  return 1\n}", "new_string": "if x {\n  if y {\n    return 2\n  }\n}"},
			"\tif x {\n\t\tif y {\n\t    return 2\n\t\t}\n\t}\n", "whitespace_tolerant", 1},
		{"missing indentation re-added",
			"class A:\n    def f(self):\n        return 1\n",
			m{"old_string": "def f(self):\n    return 1\n", "new_string": "def f(self):\n    return 2\n"},
			"class A:\n    def f(self):\n        return 2\n", "whitespace_tolerant", 1},
		{"trailing spaces in file, crlf kept",
			"a  \r\nb\t\r\nc\r\n",
			m{"old_string": "a\nb", "new_string": "x\ny"},
			"x\r\ny\r\nc\r\n", "whitespace_tolerant", 1},
		{"tolerant delete", "  a\n  b\nc\n", m{"old_string": "a\nb\n", "new_string": ""}, "c\n", "whitespace_tolerant", 1},
		{"tolerant replace all", " k\n z\n  k\n  z\n", m{"old_string": "k\nz", "new_string": "v\nw", "replace_all": true}, " v\n w\n  v\n  w\n", "whitespace_tolerant", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.write("f.txt", tt.content)
			tt.args["path"] = "f.txt"
			r := f.mustCall("patch", tt.args).(PatchResult)
			if got := f.read("f.txt"); got != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			if r.Match != tt.match || r.Replacements != tt.n {
				t.Errorf("result = %+v, want match %s n %d", r, tt.match, tt.n)
			}
			if !strings.HasPrefix(r.Diff, "--- a/f.txt\n+++ b/f.txt\n@@ ") {
				t.Errorf("diff = %q", r.Diff)
			}
		})
	}
}

func TestPatchRefusals(t *testing.T) {
	f := newFixture(t, Options{})
	orig := "x = 1\ny = 2\nx = 1\n"
	f.write("f.txt", orig)
	f.write("bin", "a\x00b")
	tests := []struct {
		args     m
		code     tool.Code
		mentions []string
	}{
		{m{"path": "f.txt", "old_string": "x = 1", "new_string": "x = 3"}, tool.CodeInvalidArguments, []string{"matches 2 places", "lines 1, 3", "replace_all"}},
		{m{"path": "f.txt", "old_string": "  x = 1  ", "new_string": "x = 3"}, tool.CodeInvalidArguments, []string{"matches 2 places"}},
		{m{"path": "f.txt", "old_string": "z = 9", "new_string": "z = 8"}, tool.CodeInvalidArguments, []string{"not found", "read_file"}},
		{m{"path": "f.txt", "old_string": "1|x = 1\n2|y = 2", "new_string": "q"}, tool.CodeInvalidArguments, []string{"prefixes"}},
		{m{"path": "f.txt", "old_string": "", "new_string": "q"}, tool.CodeInvalidArguments, []string{"write_file"}},
		{m{"path": "f.txt", "old_string": "y", "new_string": "y"}, tool.CodeInvalidArguments, []string{"identical"}},
		{m{"path": "f.txt", "old_string": "\n\n", "new_string": "q"}, tool.CodeInvalidArguments, []string{"not found"}},
		{m{"path": "bin", "old_string": "a", "new_string": "b"}, tool.CodeInvalidArguments, []string{"binary"}},
		{m{"path": "g.txt", "old_string": "a", "new_string": "b"}, tool.CodeNotFound, []string{"f.txt"}},
	}
	for _, tt := range tests {
		_, err := f.call("patch", tt.args)
		wantCode(t, err, tt.code, tt.mentions...)
	}
	if got := f.read("f.txt"); got != orig {
		t.Errorf("refused patches changed the file: %q", got)
	}
}
