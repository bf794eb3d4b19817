package team

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// openDB opens a state.db in a fresh directory; its path is returned so a
// test can open it again, as another process would.
func openDB(t testing.TB) (*sqlitedb.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return openPath(t, path), path
}

func openPath(t testing.TB, path string) *sqlitedb.DB {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), path, sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newStore is a Store on a fresh file with a fake clock.
func newStore(t testing.TB) (*Store, *clock.Fake) {
	t.Helper()
	db, _ := openDB(t)
	clk := clock.NewFake(epoch)
	return NewStore(db, StoreOptions{Clock: clk}), clk
}

func mustRun(t testing.TB, s *Store) Run {
	t.Helper()
	r, err := s.CreateRun(context.Background(), "research", "write a report")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustPost(t testing.TB, s *Store, run int64, role string, inputs ...int64) Task {
	t.Helper()
	tk, err := s.Post(context.Background(), run, Post{Role: role, Description: "do " + role, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func mustClaim(t testing.TB, s *Store, role, holder string) Task {
	t.Helper()
	tk, ok, err := s.Claim(context.Background(), role, holder, time.Minute)
	if err != nil || !ok {
		t.Fatalf("claim %s: ok=%v err=%v", role, ok, err)
	}
	return tk
}

func mustState(t testing.TB, s *Store, id int64, want State) Task {
	t.Helper()
	tk, err := s.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if tk.State != want {
		t.Fatalf("task %d is %s (error %q), want %s", id, tk.State, tk.Error, want)
	}
	return tk
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}
