package postgres

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
)

// TestOpenConcurrently: processes opening a new database at once all
// succeed, and each migration is applied and recorded once.
func TestOpenConcurrently(t *testing.T) {
	srv := pgtest.Start(t)
	const openers = 6
	var wg sync.WaitGroup
	errs := make(chan error, openers)
	for range openers {
		wg.Go(func() {
			s, err := Open(t.Context(), srv.DSN(), Options{})
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Open: %v", err)
		}
	}
	db, err := sql.Open("postgres", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, top int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*), max(version) FROM session_schema_versions`).Scan(&n, &top); err != nil {
		t.Fatalf("read versions: %v", err)
	}
	if n != len(migrations) || top != len(migrations) {
		t.Errorf("versions table has %d rows up to %d, want %d", n, top, len(migrations))
	}
	// Opening an up-to-date database changes nothing.
	s, err := Open(context.Background(), srv.DSN(), Options{})
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	s.Close()
}

// TestOpenRejects: a bad DSN or an unreachable server is an error that
// says what failed.
func TestOpenRejects(t *testing.T) {
	if _, err := Open(t.Context(), "", Options{}); err == nil {
		t.Errorf("Open with an empty DSN succeeded")
	}
	srv := pgtest.Start(t)
	_, err := Open(t.Context(), dbDSN(srv, "no_such_database"), Options{})
	if err == nil {
		t.Fatalf("Open of a database that does not exist succeeded")
	}
	t.Logf("error: %v", err)
}
