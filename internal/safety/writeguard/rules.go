package writeguard

import (
	"os"
	"path/filepath"
	"strings"
)

// Reasons shared by several rules.
const (
	whyShell = "shell start-up files run on every login"
	whyGit   = "git configuration and hooks run programs on git commands"
	whyLogin = "files that start programs at login run them unasked"
)

// writeHomeRules are the protected paths under the home directory. A rule that
// ends in "/" covers a directory and everything in it.
var writeHomeRules = []struct{ rel, why string }{
	{".ssh/", "~/.ssh holds SSH keys and configuration"},
	{".bashrc", whyShell},
	{".bash_profile", whyShell},
	{".bash_login", whyShell},
	{".bash_logout", whyShell},
	{".profile", whyShell},
	{".zshrc", whyShell},
	{".zprofile", whyShell},
	{".zshenv", whyShell},
	{".zlogin", whyShell},
	{".zlogout", whyShell},
	{".cshrc", whyShell},
	{".tcshrc", whyShell},
	{".login", whyShell},
	{".logout", whyShell},
	{".kshrc", whyShell},
	{".mkshrc", whyShell},
	{".config/fish/", whyShell}, // config.fish, conf.d and autoloaded functions
	{".xprofile", whyLogin},
	{".xsessionrc", whyLogin},
	{".xinitrc", whyLogin},
	{".pam_environment", whyLogin},
	{".config/environment.d/", whyLogin},
	{".config/autostart/", whyLogin},
	{".config/systemd/user/", whyLogin},
	{".gitconfig", whyGit},
	{".config/git/config", whyGit},
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
	{"/etc/profile", whyShell},
	{"/etc/profile.d/", whyShell},
	{"/etc/bash.bashrc", whyShell},
	{"/etc/bashrc", whyShell},
	{"/etc/zsh/", whyShell},
	{"/etc/zshrc", whyShell},
	{"/etc/zprofile", whyShell},
	{"/etc/zshenv", whyShell},
	{"/etc/environment", whyLogin},
	{"/etc/ld.so.preload", "/etc/ld.so.preload loads code into every program"},
	{"/etc/crontab", "cron tables run programs on a schedule"},
	{"/etc/cron.d/", "cron tables run programs on a schedule"},
	{"/etc/gitconfig", whyGit},
}

// denyReason returns why p may not be written, hermes's own files aside,
// or "".
func (g Guard) denyReason(p string) string {
	for _, home := range variants(g.Home) {
		for _, r := range writeHomeRules {
			if covers(filepath.Join(home, filepath.FromSlash(r.rel)), strings.HasSuffix(r.rel, "/"), p) {
				return r.why
			}
		}
	}
	for _, r := range writeSystemRules {
		if covers(filepath.FromSlash(strings.TrimSuffix(r.path, "/")), strings.HasSuffix(r.path, "/"), p) {
			return r.why
		}
	}
	if gitControl(p) {
		return whyGit + " (a repository's hooks and config)"
	}
	if isEnvFile(filepath.Base(p)) {
		return ".env files hold secrets"
	}
	if len(g.SafeRoots) > 0 && !g.underSafeRoot(p) {
		return "writes are confined to HERMES_WRITE_SAFE_ROOT (" + strings.Join(g.SafeRoots, string(os.PathListSeparator)) + ")"
	}
	return ""
}

// gitControl reports whether p is a file git runs or obeys in any
// repository: the hooks directory of a .git directory (of a submodule or
// worktree too) or of a bare repository named *.git; a .git directory's
// config, whose core.hooksPath, core.fsmonitor, core.pager and aliases
// run programs; and .git itself, which as a file ("gitdir: ...") would
// point the repository at a directory of the writer's choosing.
func gitControl(p string) bool {
	parts := strings.Split(filepath.ToSlash(p), "/")
	if parts[len(parts)-1] == ".git" {
		return true
	}
	for i, part := range parts {
		gitDir := part == ".git"
		if !gitDir && !(strings.HasSuffix(part, ".git") && i+1 < len(parts) && parts[i+1] == "hooks") {
			continue
		}
		for j, rest := range parts[i+1:] {
			switch {
			case rest == "hooks":
				return true
			case gitDir && j == len(parts)-i-2 && (rest == "config" || rest == "config.worktree"):
				return true
			}
		}
	}
	return false
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

// isEnvFile reports whether name is a dotenv file: .env, .env.* other
// than the templates projects commit on purpose, and *.env.
func isEnvFile(name string) bool {
	if name == ".env" {
		return true
	}
	if strings.HasSuffix(name, ".env") && len(name) > len(".env") {
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
