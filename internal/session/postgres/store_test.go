package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestConformance runs the session.Store suite, each subtest on a fresh
// database of the shared server, under both character types a
// database may have: C, where CJK characters are not letters to pg_trgm
// and the trigram index cannot serve CJK queries, and C.UTF-8, where it
// can (see the package doc).
func TestConformance(t *testing.T) {
	for _, ctype := range []string{"C", "C.UTF-8"} {
		t.Run("ctype="+ctype, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) session.Store {
				return open(t, pgtest.NewDatabaseCType(t, ctype))
			})
		})
	}
}

// TestCJKTrigrams: on a database whose character type is C.UTF-8, CJK
// text has trigrams, so the trigram index serves CJK queries.
func TestCJKTrigrams(t *testing.T) {
	s := open(t, pgtest.NewDatabaseCType(t, "C.UTF-8"))
	defer s.Close()
	var trigrams string
	if err := s.(*Store).db.QueryRowContext(t.Context(), `SELECT show_trgm('数据库迁移')::text`).Scan(&trigrams); err != nil {
		t.Fatal(err)
	}
	if trigrams == "{}" {
		t.Errorf("CJK text has no trigrams under LC_CTYPE C.UTF-8")
	}
}

// open opens a store on the database at dsn, which the caller closes.
func open(t *testing.T, dsn string) session.Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
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

// openStore opens a store on a database of its own, closed when t ends.
func openStore(t *testing.T) *Store {
	t.Helper()
	s := open(t, pgtest.NewDatabase(t)).(*Store)
	t.Cleanup(func() { s.Close() })
	return s
}
