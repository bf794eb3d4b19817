package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadUndeliveredReadsTheNewestOfAnyFile checks the dashboard's
// reading of undelivered.jsonl: newest first, at most the limit, lines
// that are not JSON skipped, a missing file empty, and of a file larger
// than the tail only the tail read.
func TestReadUndeliveredReadsTheNewestOfAnyFile(t *testing.T) {
	dir := t.TempDir()
	if got, err := readUndelivered(filepath.Join(dir, "none.jsonl"), 10); err != nil || len(got) != 0 {
		t.Fatalf("a missing file = %v, %v; want nothing", got, err)
	}
	path := filepath.Join(dir, "undelivered.jsonl")
	var b strings.Builder
	pad := strings.Repeat("x", 1000)
	n := 2 * undeliveredTail / 1000
	for i := range n {
		fmt.Fprintf(&b, `{"time":"2026-12-01T00:00:00Z","chat":"c%d","thread":"t","text":"%s","error":"blocked","attempts":5}`+"\n", i, pad)
		if i == n-2 {
			b.WriteString("not json\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readUndelivered(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Where != fmt.Sprintf("chat c%d thread t", n-1) || got[1].Where != fmt.Sprintf("chat c%d thread t", n-2) || got[0].Attempts != 5 {
		t.Fatalf("newest 3 = %+v", got)
	}
	all, err := readUndelivered(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) >= n || len(all) < n/3 {
		t.Errorf("read %d of %d lines; want only those in the last %d bytes", len(all), n, undeliveredTail)
	}
}
