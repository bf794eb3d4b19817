package prompt

import (
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/subdir"
)

// hermesNames are the per-directory instruction files of hermes, in the
// order Hermes prefers them; a directory contributes the first one present.
var hermesNames = [...]string{".hermes.md", "HERMES.md"}

// projectNames are the instruction files other tools established, read in
// the working directory and at the git root.
var projectNames = [...]string{"AGENTS.md", "CLAUDE.md", ".cursorrules"}

// findContextFiles lists the project context files for workdir, as absolute
// paths, in the order they enter the prompt:
//
//   - HERMES.md (or .hermes.md) of workdir and of each parent up to the git
//     root, nearest first. Nearest first because the nearest file is the most
//     specific (Hermes loads only that one) and because the total cap then
//     drops the most general files first. Without a git root the walk stops
//     at userHome when workdir is inside it; outside both, only workdir is
//     read, as in Hermes, so a HERMES.md planted in /tmp or / cannot reach
//     every session started below it.
//   - AGENTS.md, CLAUDE.md and .cursorrules of workdir, then of the git root
//     when that is another directory.
//
// A file reached twice (CLAUDE.md is often a link to AGENTS.md) is listed
// once, where it is first reached. Only fixed names are probed, so the
// order never depends on a directory listing.
func findContextFiles(workdir, userHome string) []string {
	root := gitRoot(workdir)
	stop := root
	switch {
	case stop != "":
	case userHome != "" && subdir.Within(userHome, workdir):
		stop = userHome
	default:
		stop = workdir
	}

	var found []string
	for dir := workdir; ; {
		for _, name := range hermesNames {
			if p := filepath.Join(dir, name); present(p) {
				found = append(found, p)
				break
			}
		}
		parent := filepath.Dir(dir)
		if dir == stop || parent == dir {
			break
		}
		dir = parent
	}
	dirs := []string{workdir}
	if root != "" && root != workdir {
		dirs = append(dirs, root)
	}
	for _, dir := range dirs {
		for _, name := range projectNames {
			if p := filepath.Join(dir, name); present(p) {
				found = append(found, p)
			}
		}
	}
	return dedupe(found)
}

// gitRoot is the nearest directory from dir upwards holding .git (a
// directory, or a file in worktrees and submodules), or "" when there is
// none.
func gitRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// present reports whether something is at path. Anything there except a
// missing file counts, so that an unreadable file is reported when it is
// read instead of silently passed over.
func present(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !isMissing(err)
}

// dedupe drops paths that resolve to a file already listed, keeping the
// first.
func dedupe(paths []string) []string {
	seen := map[string]bool{}
	out := paths[:0]
	for _, p := range paths {
		key := p
		if real, err := filepath.EvalSymlinks(p); err == nil {
			key = real
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}
