package declared

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
	_ "modernc.org/sqlite"
)

func TestSQLTools(t *testing.T) {
	h := newHome(t)
	db, err := sql.Open("sqlite", filepath.Join(h.tools, "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, amount INTEGER)`,
		`INSERT INTO orders VALUES (1, 'paid', 10), (2, 'paid', 25), (3, 'pending', 5)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// The connection is declared in one file and used from another.
	h.write("conns.yaml", "connections:\n  orders_db: {driver: sqlite, dsn: ./orders.db}\n")
	h.load("sql.yaml", `tools:
  - name: orders_by_status
    description: Orders with a status and at least an amount.
    parameters: {type: object, properties: {status: {type: string}, min: {type: integer}}, required: [status]}
    sql:
      connection: orders_db
      query: "SELECT id, amount FROM orders WHERE status = ? AND amount >= ? ORDER BY id"
      args: ["{{.status}}", "{{.min}}"]
  - name: orders_sql
    description: Run a SELECT on the orders database.
    parameters: {type: object, properties: {sql: {type: string}}, required: [sql]}
    sql: {connection: orders_db, read_only: true}
`)
	if s := h.loader.Tools(); len(s) != 2 || !s[1].Spec().ParallelSafe || s[0].Spec().ParallelSafe {
		t.Errorf("tools %v: only the read_only tool is parallel-safe", s)
	}
	var tr traces
	got := h.call(tr.ctx(), "orders_by_status", `{"status":"paid","min":20}`).(map[string]any)
	if !reflect.DeepEqual(got["rows"], []any{[]any{2.0, 25.0}}) {
		t.Errorf("rows = %v", got)
	}
	if !strings.Contains(tr.String(), `args: ["paid", 20]`) {
		t.Errorf("trace should show the typed bound args:\n%s", tr.String())
	}
	got = h.call(context.Background(), "orders_sql", `{"sql":"SELECT count(*) AS n FROM orders"}`).(map[string]any)
	if !reflect.DeepEqual(got["rows"], []any{[]any{3.0}}) {
		t.Errorf("rows = %v", got)
	}
	o, _ := h.run(context.Background(), "orders_sql", `{"sql":"DELETE FROM orders"}`)
	if o.Result.Status != tool.StatusError {
		t.Errorf("a read_only tool ran a DELETE: %v", o.Result)
	}

	// Changing the connection's definition closes the old one; the tools
	// follow the new definition.
	h.write("conns.yaml", "connections:\n  orders_db: {driver: sqlite, dsn: ./other.db}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	o, _ = h.run(context.Background(), "orders_sql", `{"sql":"SELECT count(*) FROM orders"}`)
	if o.Result.Status != tool.StatusError {
		t.Errorf("after the reload the tool should use other.db, which has no orders table: %v", o.Result)
	}
}
