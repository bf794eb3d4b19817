package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendAllowlistKeepsTheFile(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.yaml")
	orig := "# my settings\nmodel:\n  provider: ollama   # local\n"
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"recursive_delete", `git "force" push`, "recursive_delete"} {
		if err := appendAllowlist(home, rule); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(file)
	got := string(data)
	for _, keep := range []string{"# my settings", "provider: ollama", "# local"} {
		if !strings.Contains(got, keep) {
			t.Errorf("%q was lost:\n%s", keep, got)
		}
	}
	if strings.Count(got, "recursive_delete") != 1 || !strings.Contains(got, `git \"force\" push`) {
		t.Errorf("allowlist written as:\n%s", got)
	}
}
