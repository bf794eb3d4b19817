package app

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/tool"
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

// The registry compiles a tool's schema on its first call, so a built-in
// tool with a schema that does not compile would only fail when a model
// called it; every one is compiled here instead.
func TestBuiltinSchemasCompile(t *testing.T) {
	home := t.TempDir()
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Config: l})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tools := a.Tools.Registry.All()
	if len(tools) < 20 {
		t.Fatalf("only %d tools registered; the test lost track of the built-ins", len(tools))
	}
	for _, tl := range tools {
		s := tl.Spec()
		if _, err := tool.CompileSchema(s.Name, s.Parameters); err != nil {
			t.Error(err)
		}
	}
}
