package gwstore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// t0 is the tests' start time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openStore opens a new state.db in the test's directory and returns a
// store over it on a fake clock at t0, and the path for a second store.
func openStore(t *testing.T) (*Store, *clock.Fake, string) {
	t.Helper()
	clk := clock.NewFake(t0)
	path := filepath.Join(t.TempDir(), "state.db")
	return storeAt(t, path, clk), clk, path
}

// storeAt opens path as another process would, with its own connections.
func storeAt(t *testing.T, path string, clk clock.Clock) *Store {
	t.Helper()
	db, err := sqlitedb.Open(t.Context(), path, sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(db, Options{Clock: clk})
}
