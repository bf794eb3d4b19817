package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/session/storetest"
)

// TestConformance runs the session.Store suite, each subtest on a fresh
// database of one throwaway server, under both character types a
// database may have: C, where CJK characters are not letters to pg_trgm
// and the trigram index cannot serve CJK queries, and C.UTF-8, where it
// can (see the package doc).
func TestConformance(t *testing.T) {
	srv := pgtest.Start(t)
	admin, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var n atomic.Int64
	for _, ctype := range []string{"C", "C.UTF-8"} {
		t.Run("ctype="+ctype, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) session.Store {
				name := fmt.Sprintf("conformance_%d", n.Add(1))
				return open(t, admin, srv, name, ctype)
			})
		})
	}
}

// TestCJKTrigrams: on a database whose character type is C.UTF-8, CJK
// text has trigrams, so the trigram index serves CJK queries.
func TestCJKTrigrams(t *testing.T) {
	srv := pgtest.Start(t)
	admin, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	s := open(t, admin, srv, "cjk", "C.UTF-8")
	defer s.Close()
	var trigrams string
	if err := s.(*Store).db.QueryRowContext(t.Context(), `SELECT show_trgm('数据库迁移')::text`).Scan(&trigrams); err != nil {
		t.Fatal(err)
	}
	if trigrams == "{}" {
		t.Errorf("CJK text has no trigrams under LC_CTYPE C.UTF-8")
	}
}

// open creates database name with character type ctype on srv and opens
// a store on it, which the caller closes.
func open(t *testing.T, admin *sql.DB, srv *pgtest.Server, name, ctype string) session.Store {
	t.Helper()
	_, err := admin.ExecContext(t.Context(), fmt.Sprintf(
		"CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE '%s'", name, ctype))
	if err != nil {
		t.Fatalf("create database %s with LC_CTYPE %s: %v", name, ctype, err)
	}
	s, err := Open(context.Background(), dbDSN(srv, name), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// dbDSN is the DSN of database name on srv.
func dbDSN(srv *pgtest.Server, name string) string {
	return fmt.Sprintf("postgres://hermes@127.0.0.1:%d/%s?sslmode=disable", srv.Port(), name)
}

// mustCreate creates a session and returns its id.
func mustCreate(t *testing.T, s *Store) string {
	t.Helper()
	sess := &session.Session{Source: "cli"}
	if err := s.Create(t.Context(), sess); err != nil {
		t.Fatal(err)
	}
	return sess.ID
}

// openStore opens a store on a server of its own, closed when t ends.
func openStore(t *testing.T) *Store {
	t.Helper()
	srv := pgtest.Start(t)
	s, err := Open(context.Background(), srv.DSN(), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
