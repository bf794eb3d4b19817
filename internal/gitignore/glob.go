// Package gitignore matches paths against globs and .gitignore files:
// the file search tool and the knowledge base's folder ingest skip the
// same files git does.
package gitignore

import (
	"path"
	"strings"
)

// Glob is a compiled glob over slash-separated paths: each segment is a
// path.Match pattern and a "**" segment spans any number of directories.
// Braces ("*.{ts,tsx}") expand into alternatives.
type Glob struct {
	alts [][]string // segments of each alternative
}

// CompileGlob compiles pat, or reports path.ErrBadPattern.
func CompileGlob(pat string) (Glob, error) {
	var g Glob
	for _, alt := range expandBraces(pat) {
		segs := strings.Split(strings.Trim(alt, "/"), "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return Glob{}, err
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// Match reports whether the slash-separated path rel matches.
func (g Glob) Match(rel string) bool {
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
