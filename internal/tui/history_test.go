package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The history file is private to its owner, bounded, keeps multi-line
// entries whole, and never stores a line carrying a secret.
func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h := LoadHistory(path)
	for i := range maxHistory + 5 {
		h.Add("line " + strconv.Itoa(i))
	}
	h.Add("two\nlines")
	h.Add("use sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH as the key")
	h.Add("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", st.Mode().Perm())
	}
	again := LoadHistory(path).Lines()
	if len(again) != maxHistory {
		t.Fatalf("%d lines kept, want %d", len(again), maxHistory)
	}
	if again[len(again)-1] != "two\nlines" || again[0] != "line 6" {
		t.Errorf("first %q, last %q", again[0], again[len(again)-1])
	}
}

// Up walks back, Down forward to what was being typed; Ctrl-R finds the
// newest entry holding the typed text, and again an older one.
func TestHistoryWalk(t *testing.T) {
	h := LoadHistory(filepath.Join(t.TempDir(), "history"))
	for _, l := range []string{"git status", "ls", "git log"} {
		h.Add(l)
	}
	w := historyWalk{h: h, at: 3}
	if l, _ := w.prev("dra"); l != "git log" {
		t.Errorf("Up = %q", l)
	}
	if l, _ := w.prev(""); l != "ls" {
		t.Errorf("Up Up = %q", l)
	}
	w.next()
	if l, _ := w.next(); l != "dra" {
		t.Errorf("Down to the draft = %q", l)
	}
	if l, _ := w.search("git"); l != "git log" {
		t.Errorf("Ctrl-R git = %q", l)
	}
	if l, _ := w.search("git log"); l != "git status" {
		t.Errorf("Ctrl-R again = %q", l)
	}
}
