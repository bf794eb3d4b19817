package writeguard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteGuardRules(t *testing.T) {
	home := t.TempDir()
	g := Guard{Home: home, HermesHome: filepath.Join(home, "hh")}
	const edit = "edit the file themselves"
	tests := []struct {
		path string
		deny string // part of the rule, or "" when allowed
		hint string // part of the message's advice
	}{
		{filepath.Join(home, ".ssh"), "SSH", edit},
		{filepath.Join(home, ".ssh/authorized_keys"), "SSH", edit},
		{filepath.Join(home, ".ssh/config"), "SSH", edit},
		{filepath.Join(home, ".ssh/id_ed25519"), "SSH", edit},
		{filepath.Join(home, ".sshx/notes"), "", ""},
		{filepath.Join(home, ".bashrc"), "start-up", edit},
		{filepath.Join(home, ".zshrc"), "start-up", edit},
		{filepath.Join(home, ".profile"), "start-up", edit},
		{filepath.Join(home, ".bash_profile"), "start-up", edit},
		{filepath.Join(home, ".bash_logout"), "start-up", edit},
		{filepath.Join(home, ".zprofile"), "start-up", edit},
		{filepath.Join(home, ".zlogin"), "start-up", edit},
		{filepath.Join(home, ".cshrc"), "start-up", edit},
		{filepath.Join(home, ".config/fish/config.fish"), "start-up", edit},
		// fish runs conf.d at start and autoloads functions by name.
		{filepath.Join(home, ".config/fish/conf.d/x.fish"), "start-up", edit},
		{filepath.Join(home, ".config/fish/functions/ls.fish"), "start-up", edit},
		{filepath.Join(home, ".config/autostart/x.desktop"), "login", edit},
		{filepath.Join(home, ".config/systemd/user/x.service"), "login", edit},
		{filepath.Join(home, "proj/.bashrc"), "", ""},
		{filepath.Join(home, ".gitconfig"), "git", edit},
		{filepath.Join(home, ".config/git/config"), "git", edit},
		{filepath.Join(home, ".config/git/ignore"), "", ""},
		{filepath.Join(home, "proj/.git/hooks/pre-commit"), "git", edit},
		{filepath.Join(home, "proj/.git/hooks"), "git", edit},
		{filepath.Join(home, "proj/.git/config"), "git", edit},
		{filepath.Join(home, "proj/.git"), "git", edit},
		{filepath.Join(home, "proj/.git/modules/lib/hooks/post-checkout"), "git", edit},
		{filepath.Join(home, "proj/.git/modules/lib/config"), "git", edit},
		{filepath.Join(home, "proj/.git/worktrees/w/config.worktree"), "git", edit},
		{"/srv/repos/site.git/hooks/post-receive", "git", edit},
		{filepath.Join(home, "proj/.git/HEAD"), "", ""},
		{filepath.Join(home, "proj/.gitignore"), "", ""},
		{filepath.Join(home, "proj/.githooks/pre-commit"), "", ""},
		{filepath.Join(home, "proj/git/hooks/x"), "", ""},
		{filepath.Join(home, ".aws/credentials"), "cloud", edit},
		{filepath.Join(home, ".kube/config"), "cluster", edit},
		{filepath.Join(home, ".netrc"), "netrc", edit},
		{filepath.Join(home, ".pgpass"), "pgpass", edit},
		{filepath.Join(home, ".npmrc"), "npmrc", edit},
		{filepath.Join(home, "proj/.npmrc"), "", ""},
		{filepath.Join(home, ".git-credentials"), "git-credentials", edit},
		{filepath.Join(home, ".docker/config.json"), "docker", edit},
		{filepath.Join(home, ".docker/other.json"), "", ""},
		{filepath.Join(home, "hh"), "HERMES_HOME", "tool made for the change"},
		{filepath.Join(home, "hh/.env"), "HERMES_HOME", edit},
		{filepath.Join(home, "hh/config.yaml"), "HERMES_HOME", "hermes config set"},
		{filepath.Join(home, "hh/state.db"), "HERMES_HOME", "tool made for the change"},
		{filepath.Join(home, "hh/state.db-wal"), "HERMES_HOME", "tool made for the change"},
		{filepath.Join(home, "hh/memories/MEMORY.md"), "HERMES_HOME", "memory tool"},
		{filepath.Join(home, "hh/skills/x/SKILL.md"), "HERMES_HOME", "skill_manage"},
		{filepath.Join(home, "hh/tools/evil.yaml"), "HERMES_HOME", "Declared tools are the user's"},
		{filepath.Join(home, "hh/SOUL.md"), "HERMES_HOME", "persona"},
		{filepath.Join(home, "hh/deliveries/x.md"), "HERMES_HOME", "tool made for the change"},
		{filepath.Join(home, "hh/profiles/work/config.yaml"), "HERMES_HOME", "tool made for the change"},
		{filepath.Join(home, ".hermes/config.yaml"), "HERMES_HOME", "hermes config set"},
		{filepath.Join(home, "hhx/notes.md"), "", ""},
		{"/etc/passwd", "account", edit},
		{"/etc/shadow", "account", edit},
		{"/etc/sudoers", "sudo", edit},
		{"/etc/sudoers.d/90-hermes", "sudo", edit},
		{"/etc/profile.d/hermes.sh", "start-up", edit},
		{"/etc/ld.so.preload", "every program", edit},
		{"/etc/hosts", "", ""},
		{"/srv/app/.env", ".env", edit},
		{"/srv/app/.env.local", ".env", edit},
		{"/srv/app/.env.production", ".env", edit},
		{"/srv/app/prod.env", ".env", edit},
		{"/srv/app/.env.example", "", ""},
		{"/srv/app/.env.sample", "", ""},
		{"/srv/app/.env.template", "", ""},
		{"/srv/app/.envrc", "", ""},
		{"/srv/app/main.go", "", ""},
	}
	for _, tt := range tests {
		err := g.Check(tt.path)
		if tt.deny == "" {
			if err != nil {
				t.Errorf("Check(%s) = %v, want allowed", tt.path, err)
			}
			continue
		}
		var de *DeniedError
		if !errors.As(err, &de) {
			t.Errorf("Check(%s) = %v, want denied", tt.path, err)
			continue
		}
		if !strings.Contains(de.Rule, tt.deny) {
			t.Errorf("Check(%s) rule %q, want it to mention %q", tt.path, de.Rule, tt.deny)
		}
		if !strings.Contains(err.Error(), tt.hint) {
			t.Errorf("Check(%s) message %q does not say %q", tt.path, err, tt.hint)
		}
	}
}

func TestWriteGuardDefaultHermesHome(t *testing.T) {
	home := t.TempDir()
	g := Guard{Home: home}
	for _, p := range []string{".hermes/.env", ".hermes/memories/MEMORY.md", ".hermes/state.db"} {
		if g.Check(filepath.Join(home, p)) == nil {
			t.Errorf("~/%s allowed with an empty HermesHome", p)
		}
	}
}

func TestWriteGuardSymlinks(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	if err := os.MkdirAll(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ssh, "authorized_keys"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A link to the directory, a link to the file, and a dangling link
	// to a file that does not exist yet.
	mustLink(t, ssh, filepath.Join(proj, "keys"))
	mustLink(t, filepath.Join(ssh, "authorized_keys"), filepath.Join(proj, "ak"))
	mustLink(t, filepath.Join(home, ".bashrc"), filepath.Join(proj, "rc"))
	g := Guard{Home: home}
	for _, p := range []string{
		filepath.Join(proj, "keys", "authorized_keys"),
		filepath.Join(proj, "keys", "new_key"),
		filepath.Join(proj, "ak"),
		filepath.Join(proj, "rc"),
	} {
		err := g.Check(p)
		if err == nil || !strings.Contains(err.Error(), "leads to") {
			t.Errorf("Check(%s) = %v, want denied through the link", p, err)
		}
	}
	if err := g.Check(filepath.Join(proj, "ok.txt")); err != nil {
		t.Errorf("plain file denied: %v", err)
	}
}

func TestWriteGuardSafeRoots(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	env := root + string(os.PathListSeparator) + " " + string(os.PathListSeparator) + "relative"
	g := Guard{SafeRoots: ParseSafeRoots(env)}
	if len(g.SafeRoots) != 1 {
		t.Fatalf("ParseSafeRoots(%q) = %q", env, g.SafeRoots)
	}
	if err := g.Check(filepath.Join(root, "a/b.txt")); err != nil {
		t.Errorf("inside the safe root: %v", err)
	}
	if err := g.Check(root); err != nil {
		t.Errorf("the safe root itself: %v", err)
	}
	if err := g.Check(root + "x/b.txt"); err == nil || !strings.Contains(err.Error(), "HERMES_WRITE_SAFE_ROOT") {
		t.Errorf("sibling with the root as prefix: %v", err)
	}
	if err := g.Check(filepath.Join(other, "b.txt")); err == nil {
		t.Error("outside the safe root allowed")
	}
	// A link inside the root that leads out of it is caught.
	mustLink(t, other, filepath.Join(root, "out"))
	if err := g.Check(filepath.Join(root, "out", "b.txt")); err == nil {
		t.Error("link out of the safe root allowed")
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}
