package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetEnvMergesAndKeepsTheRest(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".env")
	old := "# my keys\nOTHER=keep me # note\nOPENAI_API_KEY=old-one\n\nPEM=\"-----BEGIN\nabc\n-----END\"\nPEM=second\nTAIL='x'"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := SetEnv(home, map[string]string{"OPENAI_API_KEY": "sk-new", "PEM": "one line", "NEW_VAR": "v"})
	if err != nil || got != path {
		t.Fatalf("SetEnv = %q, %v", got, err)
	}
	data, _ := os.ReadFile(path)
	want := "# my keys\nOTHER=keep me # note\nOPENAI_API_KEY=sk-new\n\nPEM='one line'\nTAIL='x'\nNEW_VAR=v\n"
	if string(data) != want {
		t.Errorf(".env is\n%s\nwant\n%s", data, want)
	}
	// A .env that was readable by others is 0600 afterwards: it holds keys.
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf(".env mode %v, want 0600 (%v)", fi.Mode().Perm(), err)
	}
}

func TestSetEnvValuesReadBackExactly(t *testing.T) {
	for _, v := range []string{"sk-abc_123", "a b # c", `it's "quoted" $HOME \n`, "'", "=x=", "#lead", " pad ", "ünï", ""} {
		home := t.TempDir()
		if _, err := SetEnv(home, map[string]string{"K": v}); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		data, _ := os.ReadFile(filepath.Join(home, ".env"))
		vars, _, errs := parseDotenv(data, ".env")
		if len(errs) > 0 || vars["K"].Value != v {
			t.Errorf("%q was written as %q and read back as %q (%v)", v, data, vars["K"].Value, errs)
		}
	}
}

func TestSetEnvRefusesAndWritesNothing(t *testing.T) {
	cases := []struct {
		name string
		env  string
		vars map[string]string
		want string
	}{
		{"line break in value", "A=1\n", map[string]string{"K": "sk-secret\nEVIL=1"}, "K: the value holds a line break"},
		{"control character", "A=1\n", map[string]string{"K": "sk-secret\x1b[2J"}, "control character"},
		{"bad name", "A=1\n", map[string]string{"9K": "v"}, `"9K" is not accepted as a variable name`},
		{"broken .env", "A=1\nnot a line\n", map[string]string{"K": "sk-secret"}, "fix .env before hermes writes to it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".env")
			if err := os.WriteFile(path, []byte(tc.env), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := SetEnv(home, tc.vars)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("the error repeats the value: %v", err)
			}
			if data, _ := os.ReadFile(path); string(data) != tc.env {
				t.Errorf(".env changed to %q", data)
			}
		})
	}
}
