package gitignore

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	g       Glob
	negate  bool
	dirOnly bool
}

// File is the rules of one .gitignore and the directory it governs.
type File struct {
	dir   string // absolute
	rules []ignoreRule
}

// Load reads dir/.gitignore; a missing or unreadable one gives nil.
// Patterns follow gitignore(5): "#" comments, "!" negation, a trailing "/"
// for directories only, and a pattern without an inner "/" matches at any
// depth below dir.
func Load(dir string) *File {
	f, err := os.Open(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	return Parse(dir, f)
}

// Parse parses the .gitignore of dir read from r; see Load.
func Parse(dir string, r io.Reader) *File {
	ig := &File{dir: dir}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimRight(strings.TrimSuffix(sc.Text(), "\r"), " \t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:] // \# and \! stand for themselves
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if !strings.Contains(line, "/") {
			line = "**/" + line
		}
		g, err := CompileGlob(strings.TrimPrefix(line, "/"))
		if err != nil {
			continue // git ignores malformed patterns too
		}
		r.g = g
		ig.rules = append(ig.rules, r)
	}
	if len(ig.rules) == 0 {
		return nil
	}
	return ig
}

// Ignored reports whether abs is ignored by the stack of .gitignore files
// governing it (outermost first): the last matching rule decides.
func Ignored(stack []*File, abs string, isDir bool) bool {
	out := false
	for _, ig := range stack {
		rel, err := filepath.Rel(ig.dir, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, r := range ig.rules {
			if r.dirOnly && !isDir {
				continue
			}
			if r.g.Match(rel) {
				out = !r.negate
			}
		}
	}
	return out
}

// Ancestors loads the .gitignore files above root up to the root of
// its git repository, so searching a subdirectory honours the project's
// rules. Outside a repository it returns nil.
func Ancestors(root string) []*File {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	return AncestorsWith(root, exists, Load)
}

// AncestorsWith is Ancestors with the filesystem given as
// functions: exists reports whether a path exists and load reads the
// .gitignore of a directory.
func AncestorsWith(root string, exists func(string) bool, load func(string) *File) []*File {
	if exists(filepath.Join(root, ".git")) {
		return nil // root is the repository itself
	}
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if exists(filepath.Join(d, ".git")) {
			break
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
	var stack []*File
	for i := len(dirs) - 1; i >= 0; i-- {
		if ig := load(dirs[i]); ig != nil {
			stack = append(stack, ig)
		}
	}
	return stack
}
