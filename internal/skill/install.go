package skill

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Install copies the skills at src into the skills directory and returns
// their names. src is a local directory or a git URL (https://, ssh://,
// git@host:, file://, or ending in .git), cloned with the git binary. The
// directory is one skill (it holds SKILL.md) or holds skills below it.
// Every skill is validated and scanned before anything is copied; a skill
// whose name is already installed is refused.
func (l *Library) Install(ctx context.Context, src string) ([]string, error) {
	if err := l.writable(); err != nil {
		return nil, err
	}
	dir := src
	if isGitURL(src) {
		tmp, err := os.MkdirTemp("", "hermes-skill-*")
		if err != nil {
			return nil, fmt.Errorf("install %s: %w", src, err)
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "src")
		if err := gitClone(ctx, src, dir); err != nil {
			return nil, err
		}
	} else if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("install %s: not a directory or git URL; give a directory holding SKILL.md (or skills below it) or a git URL", src)
	}
	found, err := l.collect(dir)
	if err != nil {
		return nil, err
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	for _, f := range found {
		if sk, ok := l.Get(f.skill.Name); ok {
			return nil, fmt.Errorf("install %s: skill %q is already installed at %s; remove it first (hermes skills remove %s)", src, f.skill.Name, sk.Dir, f.skill.Name)
		}
	}
	var names []string
	for _, f := range found {
		target := filepath.Join(l.opts.Dir, filepath.FromSlash(f.category), f.skill.Name)
		if err := copySkill(f.dir, target, l.opts.Dir); err != nil {
			l.invalidate()
			return names, fmt.Errorf("install %s: %w", f.skill.Name, err)
		}
		names = append(names, f.skill.Name)
		l.noteCreated(f.skill.Name, OriginUser)
	}
	l.invalidate()
	return names, nil
}

// Remove deletes a skill from the skills directory; external skills are
// refused.
func (l *Library) Remove(name string) error {
	_, err := l.Delete(context.Background(), name)
	return err
}

// Check re-reads the library and returns every problem: skills that do not
// load and support files over the size limit.
func (l *Library) Check() []Problem {
	l.invalidate()
	snap := l.current()
	problems := append([]Problem(nil), snap.problems...)
	for _, sk := range snap.skills {
		for _, rel := range sk.SupportFiles() {
			p := filepath.Join(sk.Dir, filepath.FromSlash(rel))
			if fi, err := os.Stat(p); err == nil && fi.Size() > MaxSupportBytes {
				problems = append(problems, Problem{File: p, Reason: fmt.Sprintf("%d bytes; support files are read up to %d bytes", fi.Size(), MaxSupportBytes)})
			}
		}
	}
	return problems
}

// isGitURL tells a git URL from a local path.
func isGitURL(src string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://", "git@"} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	return strings.HasSuffix(src, ".git") && !isDir(src)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// gitClone makes a shallow clone of url into dir without prompting for
// credentials.
func gitClone(ctx context.Context, url, dir string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("install %s: installing from a git URL needs the git program, which is not on PATH: install git, or clone the repository yourself and install its directory", url)
	}
	cmd := exec.CommandContext(ctx, git, "clone", "--depth", "1", "--quiet", "--", url, dir)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install %s: git clone: %w: %s", url, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// source is a skill found in an install source.
type source struct {
	skill    *Skill
	dir      string
	category string
}

// collect finds and validates the skills under dir.
func (l *Library) collect(dir string) ([]source, error) {
	var dirs []candidate
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil && fi.Mode().IsRegular() {
		dirs = []candidate{{path: filepath.Join(dir, FileName), dir: dir}}
	} else {
		_, dirs = fingerprint([]root{{dir: dir}})
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("install %s: no %s found", dir, FileName)
	}
	var out []source
	seen := map[string]string{}
	var errs []error
	for _, c := range dirs {
		data, err := os.ReadFile(c.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sk, err := Parse(c.path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[sk.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: skill %q is also defined by %s", c.path, sk.Name, prev))
			continue
		}
		seen[sk.Name] = c.path
		if reason, found := l.opts.Scan(string(data)); found {
			errs = append(errs, fmt.Errorf("%s looks like a prompt injection (%s)", c.path, reason))
			continue
		}
		if err := l.checkTree(c.dir); err != nil {
			errs = append(errs, err)
			continue
		}
		category := sk.Category
		if category == "" {
			category = strings.TrimPrefix(strings.TrimPrefix(c.category, "skills"), "/")
		}
		if category != "" && !validCategory(category) {
			category = ""
		}
		out = append(out, source{skill: sk, dir: c.dir, category: category})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("install: nothing was installed: %w", err)
	}
	return out, nil
}

// checkTree refuses a skill directory with symlinks or oversized files,
// and scans its Markdown and text files.
func (l *Library) checkTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link; skills are installed without links", p)
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > MaxSupportBytes {
			return fmt.Errorf("%s is %d bytes; at most %d are accepted per file", p, fi.Size(), MaxSupportBytes)
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".md", ".txt":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if reason, found := l.opts.Scan(string(data)); found {
				return fmt.Errorf("%s looks like a prompt injection (%s)", p, reason)
			}
		}
		return nil
	})
}

// copySkill copies src to target through a temporary directory inside
// skillsDir and a rename, so a half-copied skill is never loaded. Hidden
// entries (.git) are left behind.
func copySkill(src, target, skillsDir string) error {
	if err := os.MkdirAll(skillsDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(skillsDir, ".install-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, fi.Mode().Perm()|0o600)
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(target); err == nil {
		return fmt.Errorf("%s already exists", target)
	}
	return os.Rename(tmp, target)
}
