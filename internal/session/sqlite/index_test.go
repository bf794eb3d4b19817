package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// Messages reach the full-text indexes in batches: not at every append,
// but by the append that completes a batch, before any search, at Close,
// and, for a store that never closed (a killed process), by the next
// store's search.
func TestIndexingInBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	ctx := context.Background()
	open := func() *Store {
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	behind := func(s *Store) bool {
		t.Helper()
		b, err := sqlitedb.MessagesUnindexed(ctx, s.read)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	appendN := func(s *Store, id string, from, n int) {
		t.Helper()
		for i := from; i < from+n; i++ {
			if err := s.Append(ctx, id, &session.Message{Message: llm.UserMessage(fmt.Sprintf("zebra%d 斑马%d", i, i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	hits := func(s *Store, q string) int {
		t.Helper()
		h, err := s.Search(ctx, q, session.SearchOptions{Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		return len(h)
	}

	s := open()
	sess := &session.Session{Source: "cli"}
	if err := s.Create(ctx, sess); err != nil {
		t.Fatal(err)
	}
	appendN(s, sess.ID, 0, indexBatch-1)
	if !behind(s) {
		t.Fatalf("%d appends indexed already; want them to wait for a batch", indexBatch-1)
	}
	appendN(s, sess.ID, indexBatch-1, 1)
	if behind(s) {
		t.Fatalf("the append completing a batch of %d left messages unindexed", indexBatch)
	}
	appendN(s, sess.ID, indexBatch, 3)
	if n := hits(s, "zebra65"); n != 1 {
		t.Errorf("a search right after the append found %d, want 1", n)
	}
	if n := hits(s, "斑马66"); n != 1 {
		t.Errorf("a CJK search right after the append found %d, want 1", n)
	}
	appendN(s, sess.ID, indexBatch+3, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open()
	if behind(s) {
		t.Error("Close left appended messages unindexed")
	}
	appendN(s, sess.ID, indexBatch+5, 2) // and then the process is killed: no Close
	other := open()
	defer other.Close()
	if n := hits(other, "zebra70"); n != 1 {
		t.Errorf("another store's search found %d of a message the first never indexed, want 1", n)
	}
	if n := hits(other, "zebra"); n != indexBatch+7 {
		t.Errorf("search for every message found %d, want %d", n, indexBatch+7)
	}
}
