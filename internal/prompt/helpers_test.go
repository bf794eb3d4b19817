package prompt

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stubScan finds one phrase, standing in for redact.ScanInjection so the
// tests of this package do not depend on its patterns.
func stubScan(text string) (string, bool) {
	if strings.Contains(strings.ToLower(text), "ignore previous instructions") {
		return `instruction override: "ignore previous instructions"`, true
	}
	return "", false
}

// newTree returns a temporary directory laid out as
//
//	home/            ($HERMES_HOME and the user's home)
//	repo/.git/       (the git root)
//	repo/sub/        (a working directory)
//
// with files added by write.
func newTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"home", "repo/.git", "repo/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// write creates dir/rel with text, making parent directories.
func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// logTo returns a logger writing text lines to buf.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, nil))
}
