package writeguard

import (
	"os"
	"path/filepath"
	"testing"
)

// HERMES_HOME may be given relative to the working directory or as a
// symbolic link; its files are protected under every name.
func TestWriteGuardHermesHomeSpellings(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real-home")
	if err := os.MkdirAll(filepath.Join(real, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustLink(t, real, filepath.Join(base, "link-home"))
	t.Chdir(base)
	for _, hh := range []string{"real-home", "./real-home/", "link-home", filepath.Join(base, "link-home"), real} {
		g := Guard{HermesHome: hh}
		for _, p := range []string{
			filepath.Join(real, "state.db"),
			filepath.Join(real, "memories", "MEMORY.md"),
			filepath.Join(base, "link-home", "config.yaml"),
			filepath.Join(base, "link-home", "new", "dir", "file"),
		} {
			if g.Check(p) == nil {
				t.Errorf("HermesHome %q: %s allowed", hh, p)
			}
		}
		if err := g.Check(filepath.Join(base, "elsewhere.txt")); err != nil {
			t.Errorf("HermesHome %q: a file beside it denied: %v", hh, err)
		}
	}
}

// A directory that is the hermes home under another name is found by
// identity, whatever the spelling of the path leading to it.
func TestInHermesHomeByIdentity(t *testing.T) {
	base := t.TempDir()
	hh := filepath.Join(base, "hh")
	if err := os.MkdirAll(hh, 0o700); err != nil {
		t.Fatal(err)
	}
	mustLink(t, hh, filepath.Join(base, "alias"))
	g := Guard{HermesHome: hh}
	if !g.inHermesHome(filepath.Join(base, "alias", "not", "yet", "there")) {
		t.Error("a path through another name of the hermes home is not inside it")
	}
	if g.inHermesHome(filepath.Join(base, "other", "x")) {
		t.Error("a path beside the hermes home is inside it")
	}
}
