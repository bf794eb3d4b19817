// Package npmtest finds the real Node programs hermes's tests run against
// (MCP servers and the MCP client SDK), which scripts/install-test-deps.sh
// installs into scripts/npm/node_modules. A test that needs one calls
// Package or Node, which skip the test with a message naming the script to
// run when the program is missing.
package npmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Modules returns scripts/npm/node_modules of the repository holding the
// current directory, or skips t.
func Modules(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("npm test programs: no go.mod above the test's directory")
		}
		dir = parent
	}
	mods := filepath.Join(dir, "scripts", "npm", "node_modules")
	if _, err := os.Stat(mods); err != nil {
		t.Skipf("npm test programs are not installed (%s missing); run scripts/install-test-deps.sh", mods)
	}
	return mods
}

// Node returns the node binary, or skips t.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the MCP tests need Node.js 18 or later")
	}
	return p
}

// Package returns the directory of an installed npm package such as
// "@modelcontextprotocol/server-everything", or skips t.
func Package(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(Modules(t), filepath.FromSlash(name))
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Skipf("npm package %s is not installed; run scripts/install-test-deps.sh", name)
	}
	return dir
}

// Script returns the path of a file inside an installed npm package, such
// as Script(t, "@modelcontextprotocol/server-everything", "dist/index.js"),
// or skips t.
func Script(t testing.TB, pkg, file string) string {
	t.Helper()
	p := filepath.Join(Package(t, pkg), filepath.FromSlash(file))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s has no %s; run scripts/install-test-deps.sh", pkg, file)
	}
	return p
}
