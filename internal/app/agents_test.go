package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSoul covers where an agent's soul file may come from: inside
// HERMES_HOME, or an absolute path the operator wrote; not through a
// link in HERMES_HOME to a file outside it, nor a missing or empty file.
func TestReadSoul(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "souls/analyst.md"), "You are the analyst.\n")
	write(filepath.Join(outside, "secret.md"), "not for agents")
	write(filepath.Join(home, "souls/empty.md"), " \n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(home, "souls/link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(home, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if got, err := readSoul(home, "souls/analyst.md"); err != nil || got != "You are the analyst." {
		t.Errorf("inside: %q, %v", got, err)
	}
	if got, err := readSoul(home, filepath.Join(outside, "secret.md")); err != nil || got != "not for agents" {
		t.Errorf("absolute: %q, %v", got, err)
	}
	for p, want := range map[string]string{
		"souls/link.md":       "outside HERMES_HOME",
		"elsewhere/secret.md": "outside HERMES_HOME",
		"souls/missing.md":    "cannot be read",
		"souls/empty.md":      "is empty",
	} {
		if got, err := readSoul(home, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %q, %v; want an error saying %q", p, got, err, want)
		}
	}
}
