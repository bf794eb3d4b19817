package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// doc returns a SKILL.md with the given name, description and extra front
// matter lines, and a body.
func doc(name, desc string, extra ...string) string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "name: %s\n", name)
	fmt.Fprintf(&b, "description: %s\n", desc)
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "# %s\n\n## When to Use\nWhen %s.\n\n## Procedure\n1. Do it.\n", name, desc)
	return b.String()
}

// writeSkill writes content as root/category/name/SKILL.md and returns
// the skill's directory.
func writeSkill(t testing.TB, root, category, name, content string) string {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(category), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// open returns a library over dir (and external dirs) for linux, with a
// quiet logger and the real injection scanner.
func open(dir string, external ...string) *Library {
	return Open(Options{
		Dir:          dir,
		ExternalDirs: external,
		Platform:     "linux",
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// call runs a tool with JSON arguments and returns its data or error.
func call(t *testing.T, tl tool.Tool, args string) (map[string]any, error) {
	t.Helper()
	out, err := tl.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

// toolNamed picks one of Tools(lib).
func toolNamed(t *testing.T, lib *Library, name string) tool.Tool {
	t.Helper()
	for _, tl := range Tools(lib) {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// wantCode checks err is a *tool.Error with code whose message contains
// every fragment.
func wantCode(t *testing.T, err error, code tool.Code, fragments ...string) {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok {
		t.Fatalf("error = %v; want a tool error %s", err, code)
	}
	if te.Code != code {
		t.Fatalf("code = %s (%s); want %s", te.Code, te.Message, code)
	}
	for _, f := range fragments {
		if !strings.Contains(te.Message, f) {
			t.Errorf("message %q lacks %q", te.Message, f)
		}
	}
}
