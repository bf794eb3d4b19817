// Package atomicfile writes files so that a reader, or a crash, never sees
// half of one: the data goes to a temporary file in the same directory,
// which is then renamed over the target.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteNew writes data to path atomically, creating the directory, and
// refuses to replace an existing file unless force: files hermes writes
// for people to edit (an imported tools file, a service unit) are never
// overwritten by surprise. The error for an existing file wraps
// fs.ErrExist, so the caller can say how to go on.
func WriteNew(path string, data []byte, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	return Write(path, data, 0o600)
}

// Write writes data to path atomically with mode perm, replacing what is
// there and creating the directory (private to the user).
func Write(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hermes-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
