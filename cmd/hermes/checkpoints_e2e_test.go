package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// fileCall is a call of a file tool with args.
func fileCall(name string, args map[string]string) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{Name: name, Arguments: string(b)}
}

// With checkpoints on, a turn that edits three files can be undone: hermes
// checkpoints lists it, restore shows the diff, puts two files back byte
// for byte and removes the one the turn created, and leaves the file the
// user changed afterwards alone until --force.
func TestCheckpointsRestoreATurn(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	h.cwd = work
	a, b, made := filepath.Join(work, "main.go"), filepath.Join(work, "README.md"), filepath.Join(work, "notes.txt")
	for p, text := range map[string]string{a: "package main\n\nfunc main() {}\n", b: "# demo\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			fileCall("patch", map[string]string{"path": a, "old_string": "func main() {}", "new_string": "func main() { panic(1) }"}),
			fileCall("write_file", map[string]string{"path": b, "content": "# rewritten\n"}),
			fileCall("write_file", map[string]string{"path": made, "content": "new\n"}),
		}},
		llmtest.Reply{Text: "Done."},
	)
	h.write("config.yaml", modelConfig(srv)+"checkpoints: {enabled: true}\n")
	if r := h.hermes("chat", "-q", "refactor", "--yolo"); r.code != 0 {
		t.Fatalf("chat: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(a); !strings.Contains(string(got), "panic(1)") {
		t.Fatalf("the turn did not edit main.go: %q", got)
	}
	r := h.hermes("checkpoints", "list")
	id := regexp.MustCompile(`(?m)^(\S+)  `).FindStringSubmatch(r.stdout)
	if id == nil || !strings.Contains(r.stdout, "main.go") || !strings.Contains(r.stdout, "3 files") {
		t.Fatalf("checkpoints list:\n%s%s", r.stdout, r.stderr)
	}
	// The user edits README.md after the turn.
	if err := os.WriteFile(b, []byte("# the user's own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = h.hermes("checkpoints", "restore", id[1], "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "-func main() { panic(1) }") || !strings.Contains(r.stdout, "changed since") || !strings.Contains(r.stdout, "Restored 2 files.") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(a); string(got) != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go not restored byte for byte: %q", got)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("notes.txt, created by the turn, is still there")
	}
	if got, _ := os.ReadFile(b); string(got) != "# the user's own\n" {
		t.Errorf("README.md, changed since the turn, was restored: %q", got)
	}
	if r := h.hermes("checkpoints", "restore", id[1], "--yes", "--force"); r.code != 0 {
		t.Fatalf("forced restore: %s%s", r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(b); string(got) != "# demo\n" {
		t.Errorf("README.md after --force: %q", got)
	}
}

// In the chat, /rollback lists the session's checkpoints, /rollback 1
// shows what undoing the turn's file changes does without doing it, and
// /rollback 1 confirm does it.
func TestChatRollback(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	f := filepath.Join(work, "app.conf")
	if err := os.WriteFile(f, []byte("port = 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{fileCall("write_file", map[string]string{"path": f, "content": "port = 9999\n"})}},
		llmtest.Reply{Text: "Changed the port."},
	)
	h.write("config.yaml", "checkpoints: {enabled: true}\n")
	out := h.chatScript(srv, work, strings.Join([]string{"/rollback", "change the port", "/rollback", "/rollback 1", "/rollback 1 confirm", "/exit"}, "\n")+"\n", "--plain", "--yolo")
	for _, want := range []string{
		"/rollback: no file changes of this session are kept",
		"1  ", "app.conf",
		"-port = 9999", "+port = 8080", "/rollback 1 confirm restores these files.",
		"Restored.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat did not print %q:\n%s", want, out)
		}
	}
	if got, _ := os.ReadFile(f); string(got) != "port = 8080\n" {
		t.Errorf("app.conf after /rollback 1 confirm: %q", got)
	}
}

// Files a terminal command changes under the working directory are kept
// too: a turn that edits with sed -i, overwrites with a redirection,
// creates a file after a cd, and deletes a directory is undone byte for
// byte, while a file it writes outside the working directory is not
// touched by the restore.
func TestCheckpointsKeepTerminalWrites(t *testing.T) {
	h := newHome(t)
	work, outside := t.TempDir(), t.TempDir()
	h.cwd = work
	files := map[string]string{
		"Config.ini":       "mode = safe\n",
		"docs/Guide.md":    "# Guide\n",
		"build/out/app.js": "console.log(1)\n",
		"build/keep.txt":   "kept\n",
	}
	for name, text := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := func(c string) llm.ToolCall {
		b, _ := json.Marshal(map[string]string{"command": c})
		return llm.ToolCall{Name: "terminal", Arguments: string(b)}
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{cmd("sed -i 's/safe/fast/' Config.ini && echo '# Rewritten' > docs/Guide.md")}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{cmd("cd docs && printf 'new\\n' > Extra.md && rm -rf ../build && echo x > " + filepath.Join(outside, "log.txt"))}},
		llmtest.Reply{Text: "Done."},
	)
	h.write("config.yaml", modelConfig(srv)+"checkpoints: {enabled: true}\n")
	if r := h.hermes("chat", "-q", "tidy up", "--yolo"); r.code != 0 {
		t.Fatalf("chat: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "build")); !os.IsNotExist(err) {
		t.Fatalf("the turn's commands did not run: build is still there")
	}
	r := h.hermes("checkpoints", "list")
	id := regexp.MustCompile(`(?m)^(\S+)  `).FindStringSubmatch(r.stdout)
	if id == nil {
		t.Fatalf("checkpoints list:\n%s%s", r.stdout, r.stderr)
	}
	r = h.hermes("checkpoints", "restore", id[1], "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "-mode = fast") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for name, text := range files {
		if got, err := os.ReadFile(filepath.Join(work, name)); err != nil || string(got) != text {
			t.Errorf("%s after restore: %q, %v; want %q", name, got, err, text)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "docs", "Extra.md")); !os.IsNotExist(err) {
		t.Error("docs/Extra.md, created by the turn, is still there")
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "log.txt")); string(got) != "x\n" {
		t.Errorf("the file outside the working directory: %q", got)
	}
}
