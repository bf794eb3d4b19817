package logfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/logfile"
)

// The log is created owner-only, rotated by size with a bounded number
// of old files, and Tail reads its last lines across the rotation.
func TestRotatesBySizeAndTailsAcrossFiles(t *testing.T) {
	path := logfile.Path(t.TempDir())
	w, err := logfile.Open(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 40 {
		fmt.Fprintf(w, "line %02d xxxxxxxxxxx\n", i) // 20 bytes
	}
	for _, p := range []string{path, path + ".1", path + ".2"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if st.Size() > 100 {
			t.Errorf("%s is %d bytes, over the 100 allowed", p, st.Size())
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Error("a third rotated file is kept; two were asked for")
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("log directory mode %v, want 0700", st.Mode().Perm())
	}
	got, _, err := logfile.Tail(path, 7)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 33; i < 40; i++ {
		want = append(want, fmt.Sprintf("line %02d xxxxxxxxxxx", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("Tail(7) = %q, want %q", got, want)
	}
}

// A log file made before with loose permissions is narrowed to 0600, and
// a log that does not exist has no lines.
func TestNarrowsAnOldFileAndTailsNothing(t *testing.T) {
	path := logfile.Path(t.TempDir())
	if lines, _, err := logfile.Tail(path, 5); err != nil || len(lines) != 0 {
		t.Errorf("Tail of no log = %q, %v", lines, err)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := logfile.Open(path, 1<<20, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}
