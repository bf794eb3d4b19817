package app

import (
	"testing"

	"github.com/hermes-go/hermes/config"
)

// Only terminal.backend ssh makes a backend and a remote filesystem; the
// local terminal and the file tools work on this machine.
func TestSSHBackendOnlyForSSH(t *testing.T) {
	if b, fsys := sshBackend(config.Terminal{}); b != nil || fsys != nil {
		t.Fatalf("sshBackend of a local terminal = %v, %v, want nil, nil", b, fsys)
	}
	b, fsys := sshBackend(config.Terminal{Backend: "ssh", SSH: config.SSH{Host: "h"}})
	if b == nil || fsys == nil {
		t.Fatalf("sshBackend of an ssh terminal = %v, %v, want a backend and its filesystem", b, fsys)
	}
}

// The file tools protect the hermes home above the profile in use, so a
// profile's turn cannot rewrite another profile's files either.
func TestHermesRootAboveProfiles(t *testing.T) {
	dir := t.TempDir()
	env := func(string) (string, bool) { return "", false }
	for profile, want := range map[string]string{"": dir, "default": dir, "work": dir} {
		l, err := config.Load(config.LoadOptions{Home: dir, Profile: profile, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if got := hermesRoot(l); got != want {
			t.Errorf("profile %q: hermesRoot = %s, want %s", profile, got, want)
		}
	}
}
