package declared

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// eventually polls cond until it holds or a generous deadline passes;
// only a change that never comes fails the test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWatchReloads(t *testing.T) {
	h := newHome(t)
	path := h.write("w.yaml", "tools:\n  - name: one\n    description: first version\n    command: {argv: [ls]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.loader.Watch(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	description := func(name string) string {
		tl, ok := h.reg.Get(name)
		if !ok {
			return ""
		}
		return tl.Spec().Description
	}

	// Edit: change a description and add a tool.
	h.write("w.yaml", "tools:\n  - name: one\n    description: second version\n    command: {argv: [ls]}\n"+
		"  - name: two\n    description: added\n    command: {argv: [ls]}\n")
	eventually(t, "the edit is picked up", func() bool { return description("one") == "second version" && description("two") == "added" })

	// Break the file: the last good tools stay, the problem is listed.
	h.write("w.yaml", "tools:\n  - name: one\n    description: [broken\n")
	eventually(t, "the broken file is reported", func() bool {
		ps := h.loader.Problems()
		return len(ps) == 1 && ps[0].File == "tools/w.yaml" && strings.Contains(ps[0].Error(), "not valid YAML")
	})
	if description("one") != "second version" || description("two") != "added" {
		t.Error("a broken file must keep its last good tools")
	}

	// A new file in the directory is picked up too.
	h.write("x.yml", "tools:\n  - name: three\n    description: other file\n    command: {argv: [ls]}\n")
	eventually(t, "a new file is loaded", func() bool { return description("three") == "other file" })

	// Fix the file, then delete it: its tools go.
	h.write("w.yaml", "tools:\n  - name: one\n    description: fixed\n    command: {argv: [ls]}\n")
	eventually(t, "the fix is picked up", func() bool { return description("one") == "fixed" && description("two") == "" })
	if ps := h.loader.Problems(); len(ps) != 0 {
		t.Errorf("problems after the fix: %v", ps)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted file's tools go", func() bool { return description("one") == "" })
	if description("three") != "other file" {
		t.Error("another file's tool went too")
	}
}

func TestWatchConfigRenamedOnSave(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "model: m\ntools:\n  - name: cfg\n    description: v1\n    command: {argv: [ls]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.loader.Watch(ctx)
	// Editors write a temporary file and rename it over the original.
	tmp := h.dir + "/.config.yaml.swp"
	if err := os.WriteFile(tmp, []byte("model: m\ntools:\n  - name: cfg\n    description: v2\n    command: {argv: [ls]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, h.dir+"/config.yaml"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the renamed config is loaded", func() bool {
		tl, ok := h.reg.Get("cfg")
		return ok && tl.Spec().Description == "v2"
	})
}
