package files

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// The file tools do not read .env files or hermes's own /proc entries,
// by any road: read_file, search_files, patch, or a link.
func TestSecretsAreNotRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	f := newFixture(t, Options{})
	f.write(".env", "API_TOKEN=tok-in-dotenv-123\n")
	f.write("deploy/prod.env", "API_TOKEN=tok-in-prod-456\n")
	f.write("app/.env.local", "API_TOKEN=tok-in-local-789\n")
	f.write(".env.example", "API_TOKEN=\n")
	f.write("notes.md", "set API_TOKEN in .env\n")
	environ := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	for link, target := range map[string]string{"env.txt": environ, "cfg.txt": filepath.Join(f.dir, ".env"), "self": "/proc/self"} {
		if err := os.Symlink(target, filepath.Join(f.dir, link)); err != nil {
			t.Skip(err)
		}
	}
	for _, p := range []string{".env", "deploy/prod.env", "app/.env.local", "cfg.txt", "env.txt", "self/environ",
		"/proc/self/environ", environ, fmt.Sprintf("/proc/%d/cmdline", os.Getpid()), "/proc/self/fd/0", "/dev/stdin"} {
		_, err := f.call("read_file", m{"path": p})
		wantCode(t, err, tool.CodeDenied, "reading")
		_, err = f.call("patch", m{"path": p, "old_string": "API_TOKEN", "new_string": "X"})
		if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeDenied {
			t.Errorf("patch %s: %v, want denied", p, err)
		}
	}
	_, err := f.call("read_file", m{"path": ".env"})
	wantCode(t, err, tool.CodeDenied, "already has the values it needs", ".env.example")
	if r := f.mustCall("read_file", m{"path": ".env.example"}).(ReadResult); !strings.Contains(r.Content, "API_TOKEN=") {
		t.Errorf(".env.example = %q", r.Content)
	}

	res := f.mustCall("search_files", m{"pattern": "tok-in|API_TOKEN"}).(SearchResult)
	if strings.Contains(res.Results, "tok-in") || !strings.Contains(res.Results, "notes.md") {
		t.Errorf("search found %q; want notes.md and no .env content", res.Results)
	}
	if !strings.Contains(res.Note, "5 files were not searched because they hold secrets") {
		t.Errorf("note = %q", res.Note)
	}
	for _, p := range []string{"/proc/self", environ, ".env"} {
		_, err := f.call("search_files", m{"pattern": "PATH", "path": p})
		wantCode(t, err, tool.CodeDenied, "reading")
	}
	// Finding .env files by name is fine: it shows no values.
	res = f.mustCall("search_files", m{"pattern": "*.env", "target": "files"}).(SearchResult)
	if !strings.Contains(res.Results, "prod.env") {
		t.Errorf("files search = %q", res.Results)
	}
}
