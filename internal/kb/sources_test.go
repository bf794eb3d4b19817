package kb

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSourcesRemoveReindex: sources are listed with their chunks and
// tags; removing one removes its chunks; reindexing keeps tags, picks up
// an edit and removes a deleted file; removing a knowledge base empties
// it.
func TestSourcesRemoveReindex(t *testing.T) { eachBackend(t, testSourcesRemoveReindex) }

func testSourcesRemoveReindex(t *testing.T, backend string) {
	k := openKB(t, backend, Options{})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\nalpha\n", "b.md": "# B\nbravo\n", "c.md": "# C\ncharlie\n"})
	if _, err := k.Add(t.Context(), AddRequest{KB: "docs", Sources: []string{dir}, Tags: []string{"team"}}); err != nil {
		t.Fatal(err)
	}
	list, err := k.Sources(t.Context(), "docs")
	if err != nil || len(list) != 3 || list[0].Chunks != 1 || len(list[0].Tags) != 1 || list[0].Tags[0] != "team" {
		t.Fatalf("sources %+v, %v", list, err)
	}
	a := filepath.Join(dir, "a.md")
	if n, err := k.Remove(t.Context(), "", a); err != nil || n != 1 {
		t.Fatalf("remove: %d, %v", n, err)
	}
	if _, err := k.Remove(t.Context(), "", a); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing it again: %v", err)
	}
	if res, _ := results(k.Search(t.Context(), Query{Text: "alpha"})); len(res) != 0 {
		t.Errorf("a removed source is found: %+v", res)
	}
	writeFiles(t, dir, map[string]string{"b.md": "# B\nbravo edited\n"})
	if err := os.Remove(filepath.Join(dir, "c.md")); err != nil {
		t.Fatal(err)
	}
	rep, err := k.Reindex(t.Context(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rep); len(got) != 2 || got["b.md"] != Updated || got["c.md"] != Removed {
		t.Errorf("reindex %v", got)
	}
	if res, _ := results(k.Search(t.Context(), Query{Text: "edited", Tag: "team"})); len(res) != 1 {
		t.Errorf("the edit with its tag: %+v", res)
	}
	if n, err := k.RemoveKB(t.Context(), "docs"); err != nil || n != 1 {
		t.Errorf("remove kb: %d, %v", n, err)
	}
	if ok, _ := k.Exists(t.Context()); ok {
		t.Error("a knowledge base remains")
	}
	if _, err := k.RemoveKB(t.Context(), "docs"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing it again: %v", err)
	}
}
