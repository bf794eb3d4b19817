package pgdb

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
)

// TestOpenConcurrently: replicas opening a new database at once all
// succeed, and each migration of each schema is applied and recorded
// once.
func TestOpenConcurrently(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	const openers = 6
	var wg sync.WaitGroup
	errs := make(chan error, openers)
	for range openers {
		wg.Go(func() {
			db, err := Open(t.Context(), dsn, Options{})
			if err != nil {
				errs <- err
				return
			}
			errs <- db.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Open: %v", err)
		}
	}
	db, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	defer db.Close()
	rows, err := db.Reader().QueryContext(t.Context(), `SELECT name, count(*), max(version) FROM schema_versions GROUP BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var name string
		var n, top int
		if err := rows.Scan(&name, &n, &top); err != nil {
			t.Fatal(err)
		}
		if n != top {
			t.Errorf("schema %s: %d rows up to version %d: a version applied twice or skipped", name, n, top)
		}
		got[name] = top
	}
	for name, want := range Versions() {
		if want > 0 && got[name] != want {
			t.Errorf("schema %s at version %d, want %d", name, got[name], want)
		}
	}
}

// TestOpenRejects: an empty DSN or a database that does not exist is an
// error that says what failed, and never shows the password.
func TestOpenRejects(t *testing.T) {
	if _, err := Open(t.Context(), "", Options{}); err == nil {
		t.Errorf("Open with an empty DSN succeeded")
	}
	srv := pgtest.Shared(t)
	dsn := "postgres://hermes:s3cret-pw@127.0.0.1:" + strconv.Itoa(srv.Port()) + "/no_such_database?sslmode=disable"
	_, err := Open(t.Context(), dsn, Options{})
	if err == nil {
		t.Fatalf("Open of a database that does not exist succeeded")
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "no_such_database") {
		t.Errorf("error does not name the database: %v", err)
	}
}
