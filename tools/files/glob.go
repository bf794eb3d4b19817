package files

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// glob is a compiled glob over slash-separated paths: each segment is a
// path.Match pattern and a "**" segment spans any number of directories.
// Braces ("*.{ts,tsx}") expand into alternatives.
type glob struct {
	alts [][]string // segments of each alternative
}

// compileGlob compiles pat, or reports path.ErrBadPattern.
func compileGlob(pat string) (glob, error) {
	var g glob
	for _, alt := range expandBraces(pat) {
		segs := strings.Split(strings.Trim(alt, "/"), "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return glob{}, err
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the slash-separated path rel matches.
func (g glob) match(rel string) bool {
	segs := strings.Split(rel, "/")
	for _, alt := range g.alts {
		if matchSegs(alt, segs) {
			return true
		}
	}
	return false
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0 // a trailing ** is what is inside
			}
			for k := 0; k <= len(name); k++ {
				if matchSegs(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// expandBraces expands the first {a,b} group of pat, recursively; a
// pattern without one is returned as is.
func expandBraces(pat string) []string {
	open := strings.IndexByte(pat, '{')
	if open < 0 {
		return []string{pat}
	}
	close := strings.IndexByte(pat[open:], '}')
	if close < 0 {
		return []string{pat}
	}
	close += open
	var out []string
	for _, alt := range strings.Split(pat[open+1:close], ",") {
		out = append(out, expandBraces(pat[:open]+alt+pat[close+1:])...)
	}
	return out
}

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	g       glob
	negate  bool
	dirOnly bool
}

// ignoreFile is the rules of one .gitignore and the directory it governs.
type ignoreFile struct {
	dir   string // absolute
	rules []ignoreRule
}

// loadIgnore reads dir/.gitignore; a missing or unreadable one gives nil.
// Patterns follow gitignore(5): "#" comments, "!" negation, a trailing "/"
// for directories only, and a pattern without an inner "/" matches at any
// depth below dir.
func loadIgnore(dir string) *ignoreFile {
	f, err := os.Open(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseIgnore(dir, f)
}

// parseIgnore parses the .gitignore of dir read from r; see loadIgnore.
func parseIgnore(dir string, r io.Reader) *ignoreFile {
	ig := &ignoreFile{dir: dir}
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
		g, err := compileGlob(strings.TrimPrefix(line, "/"))
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

// ignored reports whether abs is ignored by the stack of .gitignore files
// governing it (outermost first): the last matching rule decides.
func ignored(stack []*ignoreFile, abs string, isDir bool) bool {
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
			if r.g.match(rel) {
				out = !r.negate
			}
		}
	}
	return out
}

// ancestorIgnores loads the .gitignore files above root up to the root of
// its git repository, so searching a subdirectory honours the project's
// rules. Outside a repository it returns nil.
func ancestorIgnores(root string) []*ignoreFile {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	return ancestorIgnoresWith(root, exists, loadIgnore)
}

// ancestorIgnoresWith is ancestorIgnores with the filesystem given as
// functions: exists reports whether a path exists and load reads the
// .gitignore of a directory.
func ancestorIgnoresWith(root string, exists func(string) bool, load func(string) *ignoreFile) []*ignoreFile {
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
	var stack []*ignoreFile
	for i := len(dirs) - 1; i >= 0; i-- {
		if ig := load(dirs[i]); ig != nil {
			stack = append(stack, ig)
		}
	}
	return stack
}
