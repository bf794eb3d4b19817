// Package dbtest runs a store's tests on both backends hermes keeps
// state in: SQLite (a state.db in t.TempDir()) and PostgreSQL (a fresh
// database on the test binary's one server, which internal/pgtest
// starts). A store package calls Main from its TestMain and Each from
// its tests, so one suite holds both backends to the same behaviour.
//
// HERMES_TEST_BACKENDS=sqlite (or postgres) limits the run to one
// backend, for a quick local loop; CI runs both.
package dbtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// Main runs m's tests and stops the PostgreSQL server if one was
// started: os.Exit(dbtest.Main(m)).
func Main(m *testing.M) int { return pgtest.Main(m) }

// Backends are the names Each runs under, in order.
func Backends() []string {
	all := []string{"sqlite", "postgres"}
	only := os.Getenv("HERMES_TEST_BACKENDS")
	if only == "" {
		return all
	}
	var out []string
	for _, b := range all {
		if strings.Contains(only, b) {
			out = append(out, b)
		}
	}
	return out
}

// Each runs f as a subtest per backend, each with a new database of its
// own, closed when the subtest ends.
func Each(t *testing.T, f func(t *testing.T, db sqldb.DB)) {
	t.Helper()
	EachTarget(t, func(t *testing.T, x Target) { f(t, x.Open(t)) })
}

// EachTarget runs f as a subtest per backend with a new, empty place for
// a database, for tests that open it more than once (two processes, or a
// restart).
func EachTarget(t *testing.T, f func(t *testing.T, x Target)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b, func(t *testing.T) { f(t, New(t, b)) })
	}
}

// Target is where a test's database lives: a state.db path or a
// PostgreSQL DSN.
type Target struct {
	// Backend is "sqlite" or "postgres".
	Backend string
	// Where is the file's path or the database's DSN.
	Where string
}

// New is a new, empty place for a database of backend ("sqlite" or
// "postgres").
func New(t testing.TB, backend string) Target {
	t.Helper()
	switch backend {
	case "sqlite":
		return Target{Backend: backend, Where: filepath.Join(t.TempDir(), "state.db")}
	case "postgres":
		return Target{Backend: backend, Where: pgtest.NewDatabase(t)}
	}
	t.Fatalf("dbtest: unknown backend %q; want sqlite or postgres", backend)
	return Target{}
}

// Open opens the database at x with every schema migrated, closed when
// t ends. Each call is another handle, as another process would open.
func (x Target) Open(t testing.TB) sqldb.DB {
	t.Helper()
	db, err := x.TryOpen(t.Context())
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", x.Backend, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TryOpen opens the database at x, which the caller closes.
func (x Target) TryOpen(ctx context.Context) (sqldb.DB, error) {
	if x.Backend == "postgres" {
		return pgdb.Open(ctx, x.Where, pgdb.Options{MaxConns: 8})
	}
	return sqlitedb.Open(ctx, x.Where, sqlitedb.Options{})
}

// Open opens a new, empty database of backend, closed when t ends.
func Open(t testing.TB, backend string) sqldb.DB {
	t.Helper()
	return New(t, backend).Open(t)
}
