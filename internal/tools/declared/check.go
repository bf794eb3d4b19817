package declared

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/tool"
)

// Check loads data as a tools file on its own, the way hermes will load
// it, and returns its problems joined (nil when it loads cleanly): a
// generated file is checked before it is written.
func Check(data []byte) error {
	dir, err := os.MkdirTemp("", "hermes-tools-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), data, 0o600); err != nil {
		return err
	}
	l := NewLoader(LoaderOptions{Dir: dir, Registry: tool.NewRegistry(),
		Env: func(string) (string, bool) { return "", false }})
	defer l.Close()
	if err := l.Load(); err != nil {
		return err
	}
	var errs []error
	for _, p := range l.Problems() {
		errs = append(errs, p)
	}
	return errors.Join(errs...)
}
