package writeguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Guard decides which files the file-writing tools (write_file, patch)
// may change and which files the file tools may read. Those tools act
// without asking for approval, so the guard keeps writes away from
// hermes's own state, credentials and files that run code at login or on
// every git command, where a wrong or injected write does lasting harm,
// and reads away from files that hold secrets. The user can still edit
// such files by hand.
//
// The zero value denies only the system and project rules: home-relative
// rules need Home.
type Guard struct {
	// Home is the user's home directory (~).
	Home string
	// HermesHome is $HERMES_HOME, the root of hermes's own files (above
	// every profile); it may be relative (to the working directory) or
	// reached through a symbolic link. Home/.hermes, the default, is
	// protected as well.
	HermesHome string
	// SafeRoots, when non-empty, confines writes to paths under one of
	// these directories (from HERMES_WRITE_SAFE_ROOT).
	SafeRoots []string
	// Pid is the process whose /proc entries, and those of its parents,
	// may not be read; zero means this process, a negative one none (the
	// files of another host).
	Pid int
}

// DeniedError is the error Check and CheckRead return. Rule names the
// rule that matched, for the message and for tests; Hint, when set, says
// what to do instead.
type DeniedError struct {
	Path string
	Rule string
	Hint string
	// Read marks a refused read.
	Read bool
}

func (e *DeniedError) Error() string {
	if e.Read {
		return fmt.Sprintf("reading %s is not allowed: %s. %s", e.Path, e.Rule, e.Hint)
	}
	hint := e.Hint
	if hint == "" {
		hint = "The file tools never change such files; if the change is really needed, tell the user what to change and let them edit the file themselves"
	}
	return fmt.Sprintf("writing %s is not allowed: %s. %s", e.Path, e.Rule, hint)
}

// Check returns nil when path may be written, or a *DeniedError
// naming the rule that forbids it. path must be absolute and clean. The
// path is checked as given and again with the symbolic links of its
// existing part resolved, so a link in a project cannot lead a write into
// a protected place; and a path whose existing part is the hermes home
// directory under another name (a case-insensitive or normalizing
// filesystem, a bind mount) is refused too.
func (g Guard) Check(path string) error {
	path = filepath.Clean(path)
	if d := g.deny(path); d != nil {
		d.Path = path
		return d
	}
	if real := resolveExisting(path); real != path {
		if d := g.deny(real); d != nil {
			d.Path, d.Rule = path, d.Rule+" ("+path+" leads to "+real+")"
			return d
		}
	}
	if g.inHermesHome(path) {
		d := hermesDenial("")
		d.Path = path
		return d
	}
	return nil
}

// deny returns why p may not be written, or nil.
func (g Guard) deny(p string) *DeniedError {
	if d := g.hermesDeny(p); d != nil {
		return d
	}
	if rule := g.denyReason(p); rule != "" {
		return &DeniedError{Rule: rule}
	}
	return nil
}

// covers reports whether p is target, or lies under it when dir is set.
func covers(target string, dir bool, p string) bool {
	target = filepath.Clean(target)
	if p == target {
		return true
	}
	if !dir {
		return false
	}
	if target == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, target+string(filepath.Separator))
}

// variants returns dir made absolute and clean and, when different, with
// its symbolic links resolved, so a directory reached through a link
// (macOS /var, a bind-mounted /home, a HERMES_HOME given as a link or a
// relative path) still matches resolved paths. Empty dir gives none.
func variants(dir string) []string {
	if dir == "" {
		return nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	dir = filepath.Clean(dir)
	if real := resolveExisting(dir); real != dir {
		return []string{dir, real}
	}
	return []string{dir}
}

// Resolve is the path a write to p lands on: the symbolic links of its
// longest existing prefix resolved, a dangling final link followed, and
// the rest appended. Callers that confine writes to a directory compare
// this, not p, so that a link inside the directory cannot lead out of it.
func Resolve(p string) string { return resolveExisting(p) }

// resolveExisting resolves the symbolic links of the longest existing
// prefix of p and appends the rest. A dangling final link is followed
// textually, since a write through it would create its target.
func resolveExisting(p string) string {
	rest := ""
	cur := p
	for i := 0; i < 64; i++ {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		if target, err := os.Readlink(cur); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			cur = filepath.Clean(target)
			continue
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	return p
}

// ParseSafeRoots splits a HERMES_WRITE_SAFE_ROOT value (directories
// separated by the OS list separator) into clean absolute paths, dropping
// empty and relative entries.
func ParseSafeRoots(v string) []string {
	var roots []string
	for _, r := range filepath.SplitList(v) {
		r = strings.TrimSpace(r)
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		roots = append(roots, filepath.Clean(r))
	}
	return roots
}

// FromEnv builds the guard from the process environment: Home
// from os.UserHomeDir, HermesHome from hermesHome (pass the root of the
// hermes home, above any profile; empty means Home/.hermes) and
// SafeRoots from HERMES_WRITE_SAFE_ROOT.
func FromEnv(hermesHome string) Guard {
	home, _ := os.UserHomeDir()
	return Guard{
		Home:       home,
		HermesHome: hermesHome,
		SafeRoots:  ParseSafeRoots(os.Getenv("HERMES_WRITE_SAFE_ROOT")),
	}
}
