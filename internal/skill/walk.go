package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxDepth bounds how deep below a root a skill directory may sit
// (category/sub-category/name), which also stops symlink loops.
const maxDepth = 4

// candidate is a SKILL.md found by the walk.
type candidate struct {
	path     string
	dir      string
	category string // directories between the root and the skill, '/'-joined
	external bool
}

// fingerprint walks the roots down to the skill directories and returns a
// hash of every directory's and SKILL.md's modification time and size,
// with the SKILL.md files it found. Adding, removing or renaming a skill
// changes a directory's mtime; editing a SKILL.md in place changes its
// own.
func fingerprint(roots []root) (string, []candidate) {
	h := sha256.New()
	var found []candidate
	for _, r := range roots {
		fmt.Fprintf(h, "root %s %t\n", r.dir, r.external)
		walkDir(r, r.dir, "", 0, func(line string) { h.Write([]byte(line)) }, &found)
	}
	return hex.EncodeToString(h.Sum(nil)), found
}

// walkDir records dir and descends, stopping at directories that hold a
// SKILL.md. Hidden entries (.git, .hub, .bundled.json) are skipped.
func walkDir(r root, dir, rel string, depth int, record func(string), found *[]candidate) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		record(fmt.Sprintf("missing %s\n", dir))
		return
	}
	record(fmt.Sprintf("dir %s %d\n", dir, info.ModTime().UnixNano()))
	if depth > 0 {
		if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil && fi.Mode().IsRegular() {
			record(fmt.Sprintf("skill %s %d %d\n", dir, fi.ModTime().UnixNano(), fi.Size()))
			*found = append(*found, candidate{
				path:     filepath.Join(dir, FileName),
				dir:      dir,
				category: parentOf(rel),
				external: r.external,
			})
			return
		}
	}
	if depth >= maxDepth {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !isDirEntry(dir, e) {
			continue
		}
		walkDir(r, filepath.Join(dir, name), joinRel(rel, name), depth+1, record, found)
	}
}

// isDirEntry reports whether e is a directory, following a symlink.
func isDirEntry(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		return err == nil && fi.IsDir()
	}
	return false
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// loadCandidate reads and checks one found SKILL.md.
func loadCandidate(c candidate) (*Skill, error) {
	fi, err := os.Stat(c.path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > 4*MaxSkillChars {
		return nil, fmt.Errorf("%s: %d bytes; at most %d characters are accepted: move details into references/ files", c.path, fi.Size(), MaxSkillChars)
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return nil, err
	}
	sk, err := Parse(c.path, data)
	if err != nil {
		return nil, err
	}
	if base := filepath.Base(c.dir); sk.Name != base {
		return nil, &FieldError{File: c.path, Field: "name", Value: fmt.Sprintf("%q", sk.Name), Accept: fmt.Sprintf("it must equal the directory name %q: rename one of them", base)}
	}
	sk.Dir = c.dir
	sk.External = c.external
	if c.category != "" {
		sk.Category = c.category
	}
	return sk, nil
}

// SupportFiles lists the files under the skill's support folders as
// slash-separated relative paths, sorted.
func (s *Skill) SupportFiles() []string {
	var out []string
	for _, sub := range supportDirs {
		base := filepath.Join(s.Dir, sub)
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != base && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			rel, err := filepath.Rel(s.Dir, p)
			if err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// group is the category the index shows the skill under.
func (s *Skill) group() string {
	if s.Category == "" {
		return "general"
	}
	return s.Category
}
