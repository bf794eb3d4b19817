package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedTestdata is where the shared conformance files live, relative to
// this package's directory: the shared directory beside the repository.
var sharedTestdata = filepath.Join("..", "..", "..", "..", "shared", "testdata")

// openShared opens a shared conformance file. A checkout in a git
// worktree sits one directory deeper than the main one, so the shared
// directory is also looked for further up. The test is skipped when it
// is nowhere (a checkout of hermes alone).
func openShared(t *testing.T, name string) *os.File {
	t.Helper()
	dir := sharedTestdata
	for range 3 {
		f, err := os.Open(filepath.Join(dir, name))
		if err == nil {
			return f
		}
		dir = filepath.Join("..", dir)
	}
	t.Skipf("conformance data not found: expected %s (the shared testdata directory beside the repository)", filepath.Join(sharedTestdata, name))
	return nil
}

// readJSONL decodes each line of a shared conformance file into a T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f := openShared(t, name)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, v)
	}
	return out
}

type redactCase struct {
	Input      string   `json:"input"`
	MustRedact []string `json:"must_redact"`
	MustKeep   []string `json:"must_keep"`
	Source     string   `json:"source"`
}

type injectionCase struct {
	Input  string `json:"input"`
	Flag   bool   `json:"flag"`
	Source string `json:"source"`
}

func TestHermesRedactCases(t *testing.T) {
	cases := readJSONL[redactCase](t, "hermes-redact-cases.jsonl")
	agree := 0
	for _, c := range cases {
		got := Secrets(c.Input)
		var bad []string
		for _, s := range c.MustRedact {
			if strings.Contains(got, s) {
				bad = append(bad, "kept secret "+s)
			}
		}
		for _, s := range c.MustKeep {
			if !strings.Contains(got, s) {
				bad = append(bad, "lost "+s)
			}
		}
		if len(bad) == 0 {
			agree++
			continue
		}
		t.Logf("%s\n  input %q\n  got   %q\n  %s", c.Source[strings.LastIndex(c.Source, "::")+3:], c.Input, got, strings.Join(bad, "; "))
	}
	t.Logf("agree on %d of %d", agree, len(cases))
}

func TestHermesInjectionCases(t *testing.T) {
	cases := readJSONL[injectionCase](t, "hermes-injection-cases.jsonl")
	agree := 0
	for _, c := range cases {
		reason, found := ScanInjection(c.Input)
		if found == c.Flag {
			agree++
			continue
		}
		t.Logf("%s\n  input %q flag %v got %v %s", c.Source[strings.LastIndex(c.Source, "::")+3:], c.Input, c.Flag, found, reason)
	}
	t.Logf("agree on %d of %d", agree, len(cases))
}
