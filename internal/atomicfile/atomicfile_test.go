package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "tools.yaml")
	if err := WriteNew(path, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(path, []byte("two"), false); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("replacing without force: %v, want fs.ErrExist naming the file", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "one" {
		t.Errorf("the refused write changed the file to %q", data)
	}
	if err := WriteNew(path, []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "three" {
		t.Errorf("file = %q after a forced write", data)
	}
	left, _ := os.ReadDir(filepath.Dir(path))
	if len(left) != 1 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
