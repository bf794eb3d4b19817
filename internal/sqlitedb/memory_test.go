package sqlitedb

import (
	"context"
	"database/sql"
	"sync"
	"testing"
)

// TestOpenMemory checks that a database in memory has every schema, that
// its read pool sees the writer's commits, that readers running while
// writers commit neither fail nor block for ever, and that two of them are
// separate databases.
func TestOpenMemory(t *testing.T) {
	ctx := context.Background()
	a, err := OpenMemory(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenMemory(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	insert := func(db *DB, id string) error {
		return db.WriteTx(ctx, "insert", func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, source, started_at) VALUES (?, 'test', 0)`, id)
			return err
		})
	}
	count := func(db *DB) (n int) {
		t.Helper()
		if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 100 {
		wg.Add(2)
		go func() { defer wg.Done(); errs <- insert(a, "s"+string(rune('A'+i%26))+string(rune('a'+i/26))) }()
		go func() {
			defer wg.Done()
			var n int
			errs <- a.Reader().QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := count(a); n != 100 {
		t.Errorf("the database in memory has %d sessions, want 100", n)
	}
	if n := count(b); n != 0 {
		t.Errorf("a second database in memory sees %d sessions of the first", n)
	}
	if _, err := a.Reader().ExecContext(ctx, `DELETE FROM sessions`); err == nil {
		t.Error("the read pool of a database in memory accepted a write")
	}
}
