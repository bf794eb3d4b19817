// Package subdir answers one question many parts of hermes ask before
// they read or write a path: does it lie inside a directory?
package subdir

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or lies below it, as written: no
// link is followed, so callers that must not be led out by a link
// resolve both first. An empty dir contains nothing.
func Within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
