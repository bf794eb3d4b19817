package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSecretNames(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".env"), []byte("MY_SERVICE=abc\n"), 0o600)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("providers:\n  local:\n    base_url: http://x/v1\n    api_key_env: LOCAL_LLM\n"), 0o600)
	l, err := Load(LoadOptions{Home: home, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	got := l.SecretNames([]string{"GITHUB_TOKEN=x", "PATH=/bin", "db_password=y", "HOME=/root"})
	for _, want := range []string{"MY_SERVICE", "LOCAL_LLM", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "db_password"} {
		if !slices.Contains(got, want) {
			t.Errorf("SecretNames misses %s: %v", want, got)
		}
	}
	for _, keep := range []string{"PATH", "HOME"} {
		if slices.Contains(got, keep) {
			t.Errorf("SecretNames lists %s, which is not a secret", keep)
		}
	}
}
