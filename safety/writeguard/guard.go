package writeguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Guard decides which files the file-writing tools (write_file,
// patch) may change. Those tools write without asking for approval, so the
// guard keeps them away from credentials, login shells' start-up files and
// system account databases, where a wrong or injected write does lasting
// harm. The user can still edit such files by hand.
//
// The zero value denies only the system and project rules: home-relative
// rules need Home.
type Guard struct {
	// Home is the user's home directory (~).
	Home string
	// HermesHome is $HERMES_HOME; empty means Home/.hermes.
	HermesHome string
	// SafeRoots, when non-empty, confines writes to paths under one of
	// these directories (from HERMES_WRITE_SAFE_ROOT).
	SafeRoots []string
}

// DeniedError is the error Check returns. Rule names the rule that
// matched, for the message and for tests.
type DeniedError struct {
	Path string
	Rule string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("writing %s is not allowed: %s. The file tools never change such files; if the change is really needed, tell the user what to change and let them edit the file themselves", e.Path, e.Rule)
}

// writeHomeRules are the protected paths under the home directory. A rule that
// ends in "/" covers a directory and everything in it.
var writeHomeRules = []struct{ rel, why string }{
	{".ssh/", "~/.ssh holds SSH keys and configuration"},
	{".bashrc", "shell start-up files run on every login"},
	{".bash_profile", "shell start-up files run on every login"},
	{".bash_login", "shell start-up files run on every login"},
	{".profile", "shell start-up files run on every login"},
	{".zshrc", "shell start-up files run on every login"},
	{".zprofile", "shell start-up files run on every login"},
	{".zshenv", "shell start-up files run on every login"},
	{".config/fish/config.fish", "shell start-up files run on every login"},
	{".aws/", "~/.aws holds cloud credentials"},
	{".kube/", "~/.kube holds cluster credentials"},
	{".netrc", "~/.netrc holds login credentials"},
	{".pgpass", "~/.pgpass holds database passwords"},
	{".npmrc", "~/.npmrc holds registry tokens"},
	{".git-credentials", "~/.git-credentials holds git passwords and tokens"},
	{".docker/config.json", "~/.docker/config.json holds registry credentials"},
}

// writeSystemRules are protected absolute paths.
var writeSystemRules = []struct{ path, why string }{
	{"/etc/passwd", "system account databases are off limits"},
	{"/etc/shadow", "system account databases are off limits"},
	{"/etc/sudoers", "sudo configuration is off limits"},
	{"/etc/sudoers.d/", "sudo configuration is off limits"},
}

// Check returns nil when path may be written, or a *DeniedError
// naming the rule that forbids it. path must be absolute and clean. The
// path is checked as given and again with the symbolic links of its
// existing part resolved, so a link in a project cannot lead a write into
// a protected place.
func (g Guard) Check(path string) error {
	path = filepath.Clean(path)
	if rule := g.denyReason(path); rule != "" {
		return &DeniedError{Path: path, Rule: rule}
	}
	if real := resolveExisting(path); real != path {
		if rule := g.denyReason(real); rule != "" {
			return &DeniedError{Path: path, Rule: rule + " (" + path + " leads to " + real + ")"}
		}
	}
	return nil
}

// denyReason returns why p may not be written, or "".
func (g Guard) denyReason(p string) string {
	for _, home := range variants(g.Home) {
		for _, r := range writeHomeRules {
			if covers(filepath.Join(home, filepath.FromSlash(r.rel)), strings.HasSuffix(r.rel, "/"), p) {
				return r.why
			}
		}
	}
	hh := g.HermesHome
	if hh == "" && g.Home != "" {
		hh = filepath.Join(g.Home, ".hermes")
	}
	for _, h := range variants(hh) {
		if p == filepath.Join(h, ".env") || p == filepath.Join(h, "config.yaml") {
			return "hermes' own configuration and secrets ($HERMES_HOME/.env, config.yaml) are off limits"
		}
	}
	for _, r := range writeSystemRules {
		if covers(filepath.FromSlash(strings.TrimSuffix(r.path, "/")), strings.HasSuffix(r.path, "/"), p) {
			return r.why
		}
	}
	if isEnvFile(filepath.Base(p)) {
		return ".env files hold secrets"
	}
	if len(g.SafeRoots) > 0 && !g.underSafeRoot(p) {
		return "writes are confined to HERMES_WRITE_SAFE_ROOT (" + strings.Join(g.SafeRoots, string(os.PathListSeparator)) + ")"
	}
	return ""
}

func (g Guard) underSafeRoot(p string) bool {
	for _, root := range g.SafeRoots {
		for _, r := range variants(root) {
			if covers(r, true, p) {
				return true
			}
		}
	}
	return false
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

// isEnvFile reports whether name is a dotenv file: .env or .env.* other
// than the templates projects commit on purpose.
func isEnvFile(name string) bool {
	if name == ".env" {
		return true
	}
	if !strings.HasPrefix(name, ".env.") {
		return false
	}
	switch strings.TrimPrefix(name, ".env.") {
	case "example", "sample", "template", "dist", "defaults":
		return false
	}
	return true
}

// variants returns dir cleaned and, when different, with its symbolic
// links resolved, so a home directory reached through a link (macOS /var,
// a bind-mounted /home) still matches resolved paths. Empty dir gives none.
func variants(dir string) []string {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	if real := resolveExisting(dir); real != dir {
		return []string{dir, real}
	}
	return []string{dir}
}

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
// from os.UserHomeDir, HermesHome from hermesHome (pass the resolved
// hermes home; empty means Home/.hermes) and SafeRoots from
// HERMES_WRITE_SAFE_ROOT.
func FromEnv(hermesHome string) Guard {
	home, _ := os.UserHomeDir()
	return Guard{
		Home:       home,
		HermesHome: hermesHome,
		SafeRoots:  ParseSafeRoots(os.Getenv("HERMES_WRITE_SAFE_ROOT")),
	}
}
