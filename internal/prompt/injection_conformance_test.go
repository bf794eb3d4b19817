package prompt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/sharedtest"
)

// TestHermesInjectionVectorsAsAgentsMD places each of Hermes Agent's
// injection vectors (../shared/testdata) in a project's AGENTS.md and
// checks that the system prompt blocks exactly the ones Hermes blocks.
func TestHermesInjectionVectorsAsAgentsMD(t *testing.T) {
	f, err := os.Open(sharedtest.Path(t, "hermes-injection-cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var c struct {
			Input string `json:"input"`
			Flag  bool   `json:"flag"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(c.Input), 0o644); err != nil {
			t.Fatal(err)
		}
		p := Assemble(Options{Workdir: dir, UserHome: dir, Logger: logTo(&bytes.Buffer{})})
		blocked := strings.Contains(p.Context, "[BLOCKED: AGENTS.md")
		if blocked != c.Flag {
			t.Errorf("AGENTS.md %q: blocked %v, Hermes blocks %v\n%s", c.Input, blocked, c.Flag, p.Context)
		}
	}
	if n < 30 {
		t.Fatalf("read %d vectors, want the whole file", n)
	}
}
