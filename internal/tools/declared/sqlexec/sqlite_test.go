package sqlexec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// openSQLite creates a database file in a temporary directory, with a
// table t of three rows, and opens it by a relative path.
func openSQLite(t *testing.T) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(context.Background(), Connection{Driver: "sqlite3", DSN: "data/app.db"}, dir, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT, blob BLOB)",
		"INSERT INTO t (name, score, note, blob) VALUES ('ann', 1.5, NULL, x'00ff'), ('bob', 2, 'hi', NULL), ('cy', 3, NULL, NULL)",
	} {
		if _, err := db.Run(context.Background(), Query{Query: stmt}, nil, ""); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return db, filepath.Join(dir, "data", "app.db")
}

// asJSON is v as the model would see it.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

func TestSQLiteFixedQueryWithTypedArgs(t *testing.T) {
	db, _ := openSQLite(t)
	ctx := context.Background()
	q := Query{Query: "SELECT id, name, score, note, blob FROM t WHERE id >= ? AND name <> ? AND (? IS NULL) ORDER BY id", Args: []string{"a", "b", "c"}}
	if err := Check(q, "sqlite"); err != nil {
		t.Fatalf("Check: %v", err)
	}
	res, err := db.Run(ctx, q, []any{int64(1), "bob", nil}, "")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := `{"columns":["id","name","score","note","blob"],"rows":[[1,"ann",1.5,null,"AP8="],[3,"cy",3,null,null]],"row_count":2}`
	if got := asJSON(t, res); got != want {
		t.Errorf("result\n got %s\nwant %s", got, want)
	}
}

func TestSQLiteInsertReportsRowsAffected(t *testing.T) {
	db, _ := openSQLite(t)
	ctx := context.Background()
	res, err := db.Run(ctx, Query{Query: "INSERT INTO t (name) VALUES (?), (?)", Args: []string{"a", "b"}}, []any{"dee", "eve"}, "")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := asJSON(t, res); got != `{"row_count":0,"rows_affected":2}` {
		t.Errorf("result = %s, want rows_affected 2", got)
	}
	res, err = db.Run(ctx, Query{Query: "UPDATE t SET score = 0 WHERE name LIKE ? RETURNING name", Args: []string{"a"}}, []any{"%e%"}, "")
	if err != nil {
		t.Fatalf("Run UPDATE RETURNING: %v", err)
	}
	if got := asJSON(t, res.Rows); got != `[["dee"],["eve"]]` {
		t.Errorf("RETURNING rows = %s", got)
	}
	count := countRows(t, db)
	if count != 5 {
		t.Errorf("table has %d rows after inserting 2 into 3, want 5", count)
	}
}

// countRows counts t's rows through a read_only run.
func countRows(t *testing.T, db *DB) int {
	t.Helper()
	res, err := db.Run(context.Background(), Query{ReadOnly: true}, nil, "SELECT count(*) FROM t")
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	return int(res.Rows[0][0].(int64))
}

func TestSQLiteReadOnlyCapsRows(t *testing.T) {
	db, _ := openSQLite(t)
	ctx := context.Background()
	q := Query{ReadOnly: true, MaxRows: 2}
	res, err := db.Run(ctx, q, nil, "SELECT name FROM t ORDER BY id;")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.Truncated || res.RowCount != 2 || asJSON(t, res.Rows) != `[["ann"],["bob"]]` || res.Note == "" {
		t.Errorf("result = %s; want the first 2 rows, truncated, with a note", asJSON(t, res))
	}
	res, err = db.Run(ctx, q, nil, "SELECT name FROM t WHERE id > 1")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Truncated || res.RowCount != 2 {
		t.Errorf("result = %s; want 2 rows, not truncated", asJSON(t, res))
	}
	res, err = db.Run(ctx, Query{ReadOnly: true}, nil, "PRAGMA table_info(t)")
	if err != nil || res.RowCount != 5 {
		t.Errorf("PRAGMA table_info(t) = %v, %v; want 5 rows, one a column", res, err)
	}
}

func TestSQLiteReadOnlyRefusesWrites(t *testing.T) {
	db, path := openSQLite(t)
	ctx := context.Background()
	attached := filepath.Join(filepath.Dir(path), "other.db")
	for _, stmt := range []string{
		"DELETE FROM t",
		"SELECT 1; DROP TABLE t",
		"ATTACH DATABASE '" + attached + "' AS other",
		"PRAGMA query_only = 0",
		"WITH x AS (SELECT 1) DELETE FROM t",
		"WITH x AS (SELECT 1) INSERT INTO t (name) SELECT 'x' FROM x",
	} {
		_, err := db.Run(ctx, Query{ReadOnly: true}, nil, stmt)
		te, ok := tool.AsError(err)
		if !ok || te.Code != tool.CodeInvalidArguments {
			t.Errorf("Run(%q) = %v; want invalid_arguments", stmt, err)
		}
	}
	if n := countRows(t, db); n != 3 {
		t.Errorf("table has %d rows after the refused statements, want 3", n)
	}
	if _, err := os.Stat(attached); !os.IsNotExist(err) {
		t.Errorf("ATTACH created %s (stat: %v)", attached, err)
	}
}

func TestSQLiteErrorsAreInvalidArguments(t *testing.T) {
	db, _ := openSQLite(t)
	ctx := context.Background()
	tests := []struct {
		q         Query
		args      []any
		statement string
		want      string
	}{
		{Query{ReadOnly: true}, nil, "SELECT * FROM missing", "no such table"},
		{Query{ReadOnly: true}, nil, "SELEC 1", "not accepted"},
		{Query{Query: "INSERT INTO t (id, name) VALUES (?, 'x')", Args: []string{"id"}}, []any{int64(1)}, "", "UNIQUE constraint"},
	}
	for _, tt := range tests {
		_, err := db.Run(ctx, tt.q, tt.args, tt.statement)
		te, ok := tool.AsError(err)
		if !ok || te.Code != tool.CodeInvalidArguments || !strings.Contains(te.Message, tt.want) {
			t.Errorf("Run(%q%q) = %v; want invalid_arguments mentioning %q", tt.q.Query, tt.statement, err, tt.want)
		}
	}
}

func TestSQLiteConcurrentRuns(t *testing.T) {
	db, _ := openSQLite(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := db.Run(ctx, Query{Query: "INSERT INTO t (name) VALUES (?)", Args: []string{"n"}}, []any{i}, "")
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT count(*) FROM t")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Run: %v", err)
		}
	}
	if n := countRows(t, db); n != 23 {
		t.Errorf("table has %d rows, want 23", n)
	}
}

func TestSQLiteMissingFileIsNotCreatedByReads(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(context.Background(), Connection{Driver: "sqlite", DSN: "absent.db"}, dir, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	_, err = db.Run(context.Background(), Query{ReadOnly: true}, nil, "SELECT 1")
	if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeUpstreamUnavailable {
		t.Errorf("Run on a missing file = %v; want upstream_unavailable", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "absent.db")); !os.IsNotExist(err) {
		t.Errorf("a read created the database file (stat: %v)", err)
	}
}
