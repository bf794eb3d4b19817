package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/npmtest"
)

// filesystemServer configures server-filesystem on a temporary directory
// holding two files, and returns the directory.
func filesystemServer(t *testing.T) (ServerConfig, string) {
	t.Helper()
	node := npmtest.Node(t)
	script := npmtest.Script(t, "@modelcontextprotocol/server-filesystem", "dist/index.js")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("first line\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server resolves symlinks (macOS's /var is /private/var).
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return ServerConfig{Command: node, Args: []string{script, dir}, Enabled: true,
		Exclude: []string{"write_file", "edit_file", "move_file"}}, dir
}

func TestFilesystem(t *testing.T) {
	cfg, dir := filesystemServer(t)
	_, reg, _ := startManager(t, map[string]ServerConfig{"fs": cfg})
	if _, ok := reg.Get("mcp__fs__write_file"); ok {
		t.Errorf("write_file is registered though excluded")
	}
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"list", "mcp__fs__list_directory", `{"path":` + quote(dir) + `}`, []string{`[FILE] notes.txt`, `[FILE] plan.md`}},
		{"read", "mcp__fs__read_text_file", `{"path":` + quote(filepath.Join(dir, "notes.txt")) + `}`, []string{`"status":"ok"`, `first line\nsecond line`}},
		{"head", "mcp__fs__read_text_file", `{"path":` + quote(filepath.Join(dir, "notes.txt")) + `,"head":"1"}`, []string{`first line`}},
		{"outside", "mcp__fs__read_text_file", `{"path":"/etc/hostname"}`, []string{`"status":"error"`, `"error_code":"internal"`, `outside allowed directories`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := dispatch(t, reg, tc.tool, tc.args)
			for _, w := range tc.want {
				if !strings.Contains(o.Content, w) {
					t.Errorf("%s = %s; want it to contain %s", tc.tool, o.Content, w)
				}
			}
		})
	}
}

// quote is a JSON string literal of s.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
