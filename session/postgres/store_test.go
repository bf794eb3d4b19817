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
// database of one throwaway server.
func TestConformance(t *testing.T) {
	srv := pgtest.Start(t)
	admin, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) session.Store {
		name := fmt.Sprintf("conformance_%d", n.Add(1))
		if _, err := admin.ExecContext(t.Context(), "CREATE DATABASE "+name); err != nil {
			t.Fatalf("create database %s: %v", name, err)
		}
		s, err := Open(context.Background(), dbDSN(srv, name), Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	})
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
