package skill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared"
)

// TestDeclaredToolTemplateLoads keeps the declared-tool skill's template
// in step with the real declared-tool format: it must load without
// problems.
func TestDeclaredToolTemplateLoads(t *testing.T) {
	data, err := bundledFS.ReadFile("bundled/hermes/declared-tool/templates/tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "example.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	l := declared.NewLoader(declared.LoaderOptions{Dir: dir, Registry: reg, Env: func(string) (string, bool) { return "", false }})
	defer l.Close()
	if err := l.Load(); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Problems() {
		t.Errorf("template problem: %s:%d %s: %v", p.File, p.Line, p.Tool, p.Err)
	}
	for _, name := range []string{"search_orders", "disk_report", "deploy_site", "orders_by_user"} {
		if _, ok := reg.Get(name); !ok {
			t.Errorf("template tool %s not registered", name)
		}
	}
}
