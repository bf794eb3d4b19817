package pgtest

import (
	"database/sql"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// A test binary whose TestMain calls Main shares one server among its
// tests (Shared), each test on a fresh database (NewDatabase): starting
// a cluster takes a second or two, a database a few milliseconds.
var (
	mainInstalled atomic.Bool
	sharedOnce    sync.Once
	sharedSrv     *Server
	sharedStop    func() error
	sharedSkip    string
	sharedErr     error
	databases     atomic.Int64
)

// Main runs the tests of m and then stops the shared server, if a test
// started it. Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	mainInstalled.Store(true)
	code := m.Run()
	if sharedStop != nil {
		if err := sharedStop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Shared is the test binary's one server, started by the first test
// that asks. Without Main in TestMain it is a server for t alone
// (Start). It skips t as Start does.
func Shared(t testing.TB) *Server {
	t.Helper()
	if !mainInstalled.Load() {
		return Start(t)
	}
	sharedOnce.Do(func() {
		sharedSrv, sharedStop, sharedSkip, sharedErr = launch()
	})
	if sharedSkip != "" {
		t.Skip(sharedSkip)
	}
	if sharedErr != nil {
		t.Fatalf("pgtest: %v", sharedErr)
	}
	return sharedSrv
}

// NewDatabase creates a database of its own for t on the shared server
// and returns its DSN. The database's character type is C.UTF-8, so
// pg_trgm makes trigrams of CJK text (see session/postgres).
func NewDatabase(t testing.TB) string {
	t.Helper()
	return NewDatabaseCType(t, "C.UTF-8")
}

// NewDatabaseCType is NewDatabase with the given LC_CTYPE ("C" or
// "C.UTF-8").
func NewDatabaseCType(t testing.TB, ctype string) string {
	t.Helper()
	srv := Shared(t)
	admin, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), databases.Add(1))
	if _, err := admin.ExecContext(t.Context(), fmt.Sprintf(
		"CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE '%s'", name, ctype)); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	return srv.DatabaseDSN(name)
}

// DatabaseDSN is the DSN of database name on s.
func (s *Server) DatabaseDSN(name string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, name)
}
