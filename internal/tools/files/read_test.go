package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

// fixture is a workdir with the tools built over it.
type fixture struct {
	t     *testing.T
	dir   string
	home  string
	tools map[string]tool.Tool
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), home: t.TempDir(), tools: map[string]tool.Tool{}}
	if o.Guard.Home == "" {
		o.Guard.Home = f.home
	}
	for _, tl := range New(o) {
		f.tools[tl.Spec().Name] = tl
	}
	return f
}

func (f *fixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// call runs a tool with args given as a Go value.
func (f *fixture) call(name string, args any) (any, error) {
	f.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: f.dir})
	return f.tools[name].Call(ctx, raw)
}

func (f *fixture) mustCall(name string, args any) any {
	f.t.Helper()
	v, err := f.call(name, args)
	if err != nil {
		f.t.Fatalf("%s %v: %v", name, args, err)
	}
	return v
}

// wantCode checks err is a tool error with code whose message mentions
// every string in mentions.
func wantCode(t *testing.T, err error, code tool.Code, mentions ...string) {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	for _, m := range mentions {
		if !strings.Contains(te.Message, m) {
			t.Errorf("message %q does not mention %q", te.Message, m)
		}
	}
}

type m = map[string]any

func TestReadFile(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("lf.txt", "one\ntwo\nthree\n")
	f.write("crlf.txt", "one\r\ntwo\r\n")
	f.write("nonl.txt", "a\nb")
	f.write("zh.txt", "你好\n世界\n")
	f.write("empty.txt", "")
	tests := []struct {
		args    m
		content string
		total   int
	}{
		{m{"path": "lf.txt"}, "1|one\n2|two\n3|three", 3},
		{m{"path": "crlf.txt"}, "1|one\n2|two", 2},
		{m{"path": "nonl.txt"}, "1|a\n2|b", 2},
		{m{"path": "zh.txt"}, "1|你好\n2|世界", 2},
		{m{"path": "empty.txt"}, "", 0},
		{m{"path": filepath.Join(f.dir, "lf.txt"), "offset": 2, "limit": 1}, "2|two", 3},
		{m{"path": "lf.txt", "offset": 3}, "3|three", 3},
	}
	for _, tt := range tests {
		r := f.mustCall("read_file", tt.args).(ReadResult)
		if r.Content != tt.content || r.TotalLines != tt.total {
			t.Errorf("%v: content %q total %d, want %q %d", tt.args, r.Content, r.TotalLines, tt.content, tt.total)
		}
	}
	r := f.mustCall("read_file", m{"path": "lf.txt", "offset": 1, "limit": 2}).(ReadResult)
	if !r.Truncated || r.NextOffset != 3 || !strings.Contains(r.Note, "offset=3") || r.Path != "lf.txt" {
		t.Errorf("paged read = %+v", r)
	}
	_, err := f.call("read_file", m{"path": "lf.txt", "offset": 9})
	wantCode(t, err, tool.CodeInvalidArguments, "past the end", "3 lines")
	_, err = f.call("read_file", m{"path": "."})
	wantCode(t, err, tool.CodeInvalidArguments, "directory")
}

func TestReadFileCharCap(t *testing.T) {
	f := newFixture(t, Options{MaxReadChars: 100})
	f.write("big.txt", strings.Repeat("0123456789\n", 50))
	r := f.mustCall("read_file", m{"path": "big.txt"}).(ReadResult)
	if !r.Truncated || r.NextOffset == 0 || len(r.Content) > 100 || r.TotalLines != 50 {
		t.Fatalf("capped read = %+v", r)
	}
	if !strings.Contains(r.Note, "offset=") {
		t.Errorf("note %q does not say how to page", r.Note)
	}
	next := f.mustCall("read_file", m{"path": "big.txt", "offset": r.NextOffset}).(ReadResult)
	if !strings.HasPrefix(next.Content, strconv.Itoa(r.NextOffset)+"|") {
		t.Errorf("next page starts %q", next.Content[:10])
	}
}

func TestReadFileLongLine(t *testing.T) {
	f := newFixture(t, Options{MaxLineChars: 10})
	f.write("min.js", strings.Repeat("界", 30)+"\n")
	r := f.mustCall("read_file", m{"path": "min.js"}).(ReadResult)
	if !strings.HasPrefix(r.Content, "1|"+strings.Repeat("界", 10)+"…") || !strings.Contains(r.Content, "30 characters") {
		t.Errorf("long line = %q", r.Content)
	}
}

func TestReadFileBinary(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	f.write("controls.dat", strings.Repeat("\x01\x02\x03\xff\xfe", 20))
	_, err := f.call("read_file", m{"path": "img.png"})
	wantCode(t, err, tool.CodeInvalidArguments, "binary", "16 bytes", "image/png")
	_, err = f.call("read_file", m{"path": "controls.dat"})
	wantCode(t, err, tool.CodeInvalidArguments, "binary")
}

// 8-bit text (Latin-1, Windows-1252: old CSV exports and logs) is read,
// decoded to UTF-8 with a note saying how, instead of refused as binary.
func TestReadFileEightBitText(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("latin1.csv", "name;price\ncaf\xe9 cr\xe8me;\x935 \x80\x94 \xbd off\x94\n\x81\n")
	r := f.mustCall("read_file", m{"path": "latin1.csv"}).(ReadResult)
	if want := "1|name;price\n2|café crème;“5 €” ½ off”\n3|\ufffd"; r.Content != want {
		t.Errorf("content = %q, want %q", r.Content, want)
	}
	if !strings.Contains(r.Note, "Windows-1252") || !utf8.ValidString(r.Content) {
		t.Errorf("note = %q", r.Note)
	}
	p := f.mustCall("read_file", m{"path": "latin1.csv", "limit": 1}).(ReadResult)
	if !strings.Contains(p.Note, "continue with offset=2") || !strings.Contains(p.Note, "Windows-1252") {
		t.Errorf("a page's note = %q", p.Note)
	}
}

func TestIsBinaryCutRune(t *testing.T) {
	// A multi-byte rune split by the sniff window is still text.
	head := []byte(strings.Repeat("a", sniffLen-1) + "界")[:sniffLen]
	if isBinary(head) {
		t.Error("text with a rune cut at the window end reported binary")
	}
}

func TestReadFileNotFound(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("README.md", "x")
	f.write("main.go", "x")
	f.write("mian_test.go", "x")
	f.write("unrelated.txt", "x")
	_, err := f.call("read_file", m{"path": "readme.md"})
	wantCode(t, err, tool.CodeNotFound, "README.md")
	_, err = f.call("read_file", m{"path": "mian.go"})
	wantCode(t, err, tool.CodeNotFound, "main.go")
	if strings.Contains(err.Error(), "unrelated") {
		t.Errorf("suggested an unrelated name: %v", err)
	}
	_, err = f.call("read_file", m{"path": "nodir/x.go"})
	wantCode(t, err, tool.CodeNotFound, "nor does its directory")
}

func TestReadFileHome(t *testing.T) {
	f := newFixture(t, Options{})
	if err := os.WriteFile(filepath.Join(f.home, "notes.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.mustCall("read_file", m{"path": "~/notes.txt"}).(ReadResult)
	if r.Content != "1|hi" {
		t.Errorf("~ read = %+v", r)
	}
}
