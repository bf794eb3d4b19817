package skill

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/subdir"
)

// supportPath checks a support file's path relative to its skill and
// returns it cleaned and slash-separated. It must name a file inside one of
// the support folders: no absolute paths, no "..", no hidden segments.
func supportPath(field, rel string) (string, error) {
	orig := rel
	rel = strings.TrimSpace(strings.ReplaceAll(rel, `\`, "/"))
	accept := "want a relative path under references/, templates/, scripts/ or assets/ (like \"references/api.md\")"
	if rel == "" {
		return "", fmt.Errorf("%s is empty; %s", field, accept)
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", fmt.Errorf("%s %q is absolute; %s", field, orig, accept)
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%s %q leaves the skill directory; %s", field, orig, accept)
		}
	}
	clean := path.Clean(rel)
	top, rest, ok := strings.Cut(clean, "/")
	if !ok || rest == "" || !contains(supportDirs, top) {
		return "", fmt.Errorf("%s %q is not inside a support folder; %s", field, orig, accept)
	}
	for _, seg := range strings.Split(rest, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", fmt.Errorf("%s %q has a hidden segment %q; %s", field, orig, seg, accept)
		}
	}
	return clean, nil
}

// resolveInside joins rel to dir and makes sure the result, with symlinks
// resolved as far as they exist, stays inside dir.
func resolveInside(dir, rel string) (string, error) {
	full := filepath.Join(dir, filepath.FromSlash(rel))
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	// Resolve the deepest existing ancestor, so a symlinked folder
	// pointing outside the skill is caught before anything is written.
	probe := full
	var tail []string
	for {
		if real, err := filepath.EvalSymlinks(probe); err == nil {
			real = filepath.Join(append([]string{real}, tail...)...)
			if !subdir.Within(realDir, real) {
				return "", fmt.Errorf("%q resolves outside the skill directory", rel)
			}
			return full, nil
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return "", fmt.Errorf("%q cannot be resolved", rel)
		}
		tail = append([]string{filepath.Base(probe)}, tail...)
		probe = parent
	}
}

// writeAtomic writes data to name through a temporary file in the same
// directory and a rename, so readers (and another hermes) never see half a
// file. A new file gets perm; an existing one keeps its mode.
func writeAtomic(name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(name)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	mode := perm
	if fi, err := os.Stat(name); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
