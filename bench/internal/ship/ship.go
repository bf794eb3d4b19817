// Package ship builds hermes for the bench programs the way it ships:
// static (no cgo), stripped and trimmed, so their figures are the ones a
// user gets.
package ship

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles pkg into out, running go in dir ("" for the current one).
func Build(out, pkg, dir string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", pkg, err, msg)
	}
	return nil
}

// Hermes builds ./cmd/hermes into a new temporary directory named after
// prefix and returns the binary's path and the directory, which the
// caller removes.
func Hermes(prefix string) (bin, dir string, err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "hermes")
	if err := Build(bin, "./cmd/hermes", ""); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return bin, dir, nil
}
