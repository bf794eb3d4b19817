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
// this package's directory.
var sharedTestdata = filepath.Join("..", "..", "..", "..", "shared", "testdata")

// readJSONL decodes each line of a shared conformance file into a T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
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
		t.Errorf("%s\n  input %q flag %v got %v %s", c.Source[strings.LastIndex(c.Source, "::")+3:], c.Input, c.Flag, found, reason)
	}
	t.Logf("agree on %d of %d", agree, len(cases))
}
