// Package sharedtest finds the conformance data recorded from the real
// world (vendor API exchanges, Hermes Agent's test vectors) that lives in
// the shared testdata directory beside the repository, for tests.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a directory that replaces the search.
const Env = "HERMES_SHARED_TESTDATA"

// Path returns the path of name in the shared testdata directory: the
// directory Env names, else shared/testdata beside the repository, looked
// for from the test's directory upwards (a git worktree sits deeper than
// the main checkout). The test is skipped, saying where the data was
// expected, when it is nowhere: a checkout of hermes alone runs without
// it.
func Path(t testing.TB, name string) string {
	t.Helper()
	if d := os.Getenv(Env); d != "" {
		return filepath.Join(d, name)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "testdata", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("conformance data %s not found in shared/testdata beside the repository or above it (set %s to its directory)", name, Env)
		}
		dir = parent
	}
}
