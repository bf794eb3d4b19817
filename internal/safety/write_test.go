package safety

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckWriteOutsideRoot checks every way a path can leave the root —
// "..", an absolute path elsewhere, a link inside the root that leads
// out, a link to a directory outside with a new file under it — against
// the paths that stay inside, which are never asked about.
func TestCheckWriteOutsideRoot(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "project"), filepath.Join(base, "elsewhere")
	for _, d := range []string{filepath.Join(root, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(outside, "back")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		asks bool
	}{
		{filepath.Join(root, "a.txt"), false},
		{filepath.Join(root, "src", "new", "b.go"), false},
		{root + "/src/../c.txt", false},
		{filepath.Join(outside, "back", "d.txt"), false},
		{root + "/../elsewhere/e.txt", true},
		{filepath.Join(outside, "f.txt"), true},
		{"/etc/hermes-test-g", true},
		{filepath.Join(root, "link.txt"), true},
		{filepath.Join(root, "out", "new", "h.txt"), true},
		{root + "-sibling/i.txt", true},
	}
	for _, c := range cases {
		for _, a := range []Answer{Once, Deny} {
			p := answering(a)
			err := (&Policy{}).CheckWrite(context.Background(), "s", Asker{Prompter: p, WriteRoot: root}, filepath.Clean(c.path))
			if asked := p.count() == 1; asked != c.asks {
				t.Errorf("%s: asked %v; want %v", c.path, asked, c.asks)
				continue
			}
			wantErr := c.asks && a == Deny
			var de *WriteDeniedError
			if (err != nil) != wantErr || (err != nil && !errors.As(err, &de)) {
				t.Errorf("%s answered %v: %v; want a denial %v", c.path, a, err, wantErr)
			}
			if c.asks && p.asked[0].Path == "" || c.asks && p.asked[0].Dir != root {
				t.Errorf("%s: request %+v; want the path and the root", c.path, p.asked[0])
			}
			if err != nil && !strings.Contains(err.Error(), "outside the working directory "+root) {
				t.Errorf("message %q does not tell the model where to write", err)
			}
		}
	}
}

// TestCheckWriteWithoutRoot checks that fronts that set no WriteRoot
// write as before, and that --yolo, approvals off (the front's mode, else
// approvals.mode) and a session grant allow writes outside the root
// without asking, while nobody to ask refuses them.
func TestCheckWriteWithoutRoot(t *testing.T) {
	root, out := t.TempDir(), filepath.Join(t.TempDir(), "x")
	ctx := context.Background()
	p := answering(Deny)
	if err := (&Policy{}).CheckWrite(ctx, "s", Asker{Prompter: p}, out); err != nil || p.count() != 0 {
		t.Errorf("no root: %v, asked %d", err, p.count())
	}
	if err := (&Policy{}).CheckWrite(ctx, "s", Asker{Prompter: p, Yolo: true, WriteRoot: root}, out); err != nil || p.count() != 0 {
		t.Errorf("yolo: %v, asked %d", err, p.count())
	}
	if err := (&Policy{Mode: ModeOff}).CheckWrite(ctx, "s", Asker{Prompter: p, WriteRoot: root}, out); err != nil || p.count() != 0 {
		t.Errorf("mode off: %v, asked %d", err, p.count())
	}
	if err := (&Policy{}).CheckWrite(ctx, "s", Asker{Prompter: p, Mode: ModeOff, WriteRoot: root}, out); err != nil || p.count() != 0 {
		t.Errorf("the front's mode off: %v, asked %d", err, p.count())
	}
	if err := (&Policy{Mode: ModeOff}).CheckWrite(ctx, "s", Asker{Prompter: p, Mode: ModeManual, WriteRoot: root}, out); err == nil || p.count() != 1 {
		t.Errorf("the front's mode manual over approvals off: %v, asked %d; want asked once and denied", err, p.count())
	}
	if err := (&Policy{}).CheckWrite(ctx, "s", Asker{WriteRoot: root}, out); err == nil {
		t.Error("nobody to ask: the write outside the root was allowed")
	}
	pol := &Policy{}
	sess := answering(Session)
	for i := 0; i < 2; i++ {
		if err := pol.CheckWrite(ctx, "s", Asker{Prompter: sess, WriteRoot: root}, out); err != nil {
			t.Fatal(err)
		}
	}
	if sess.count() != 1 {
		t.Errorf("a Session answer asked %d times; want once", sess.count())
	}
}
