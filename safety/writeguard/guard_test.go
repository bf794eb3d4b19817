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
	tests := []struct {
		path string
		deny string // part of the rule, or "" when allowed
	}{
		{filepath.Join(home, ".ssh"), "SSH"},
		{filepath.Join(home, ".ssh/authorized_keys"), "SSH"},
		{filepath.Join(home, ".ssh/config"), "SSH"},
		{filepath.Join(home, ".ssh/id_ed25519"), "SSH"},
		{filepath.Join(home, ".sshx/notes"), ""},
		{filepath.Join(home, ".bashrc"), "start-up"},
		{filepath.Join(home, ".zshrc"), "start-up"},
		{filepath.Join(home, ".profile"), "start-up"},
		{filepath.Join(home, ".bash_profile"), "start-up"},
		{filepath.Join(home, ".zprofile"), "start-up"},
		{filepath.Join(home, ".config/fish/config.fish"), "start-up"},
		{filepath.Join(home, ".config/fish/functions/x.fish"), ""},
		{filepath.Join(home, "proj/.bashrc"), ""},
		{filepath.Join(home, ".aws/credentials"), "cloud"},
		{filepath.Join(home, ".kube/config"), "cluster"},
		{filepath.Join(home, ".netrc"), "netrc"},
		{filepath.Join(home, ".pgpass"), "pgpass"},
		{filepath.Join(home, ".npmrc"), "npmrc"},
		{filepath.Join(home, "proj/.npmrc"), ""},
		{filepath.Join(home, ".git-credentials"), "git-credentials"},
		{filepath.Join(home, ".docker/config.json"), "docker"},
		{filepath.Join(home, ".docker/other.json"), ""},
		{filepath.Join(home, "hh/.env"), "HERMES_HOME"},
		{filepath.Join(home, "hh/config.yaml"), "HERMES_HOME"},
		{filepath.Join(home, "hh/skills/x/SKILL.md"), ""},
		{"/etc/passwd", "account"},
		{"/etc/shadow", "account"},
		{"/etc/sudoers", "sudo"},
		{"/etc/sudoers.d/90-hermes", "sudo"},
		{"/etc/hosts", ""},
		{"/srv/app/.env", ".env"},
		{"/srv/app/.env.local", ".env"},
		{"/srv/app/.env.production", ".env"},
		{"/srv/app/.env.example", ""},
		{"/srv/app/.env.sample", ""},
		{"/srv/app/.env.template", ""},
		{"/srv/app/.envrc", ""},
		{"/srv/app/main.go", ""},
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
		if !strings.Contains(err.Error(), "edit the file themselves") {
			t.Errorf("message %q does not tell the user can edit the file", err)
		}
	}
}

func TestWriteGuardDefaultHermesHome(t *testing.T) {
	home := t.TempDir()
	g := Guard{Home: home}
	if g.Check(filepath.Join(home, ".hermes/.env")) == nil {
		t.Error("~/.hermes/.env allowed with an empty HermesHome")
	}
	if err := g.Check(filepath.Join(home, ".hermes/memories/MEMORY.md")); err != nil {
		t.Errorf("memory file denied: %v", err)
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
