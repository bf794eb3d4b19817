package pgdb

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// TestCronAuditMirrorSQLite: the cron and audit tables have, on
// PostgreSQL, the columns state.db gives them, in the same order, of
// the matching types and nullability, with the same primary keys, so
// hermes storage migrate can copy every row column by column.
func TestCronAuditMirrorSQLite(t *testing.T) {
	lite, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := Open(t.Context(), pgtest.NewDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	// columns lists a table's columns as "name type null|notnull pk?",
	// SQLite's types spelled as PostgreSQL's.
	columns := func(db *sql.DB, q, table string) []string {
		rows, err := db.QueryContext(t.Context(), q, table)
		if err != nil {
			t.Fatalf("columns of %s: %v", table, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var name, typ string
			var notNull, pk bool
			if err := rows.Scan(&name, &typ, &notNull, &pk); err != nil {
				t.Fatal(err)
			}
			if as, ok := map[string]string{"INTEGER": "bigint", "TEXT": "text", "REAL": "double precision", "BLOB": "bytea"}[typ]; ok {
				typ = as
			}
			col := name + " " + typ + " null"
			if notNull || pk {
				col = name + " " + typ + " notnull"
			}
			if pk {
				col += " pk"
			}
			out = append(out, col)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	const liteQ = `SELECT name, type, "notnull", pk > 0 FROM pragma_table_info(?) ORDER BY cid`
	const pgQ = `SELECT c.column_name, c.data_type, c.is_nullable = 'NO',
	EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints tc
		ON tc.constraint_name = k.constraint_name AND tc.table_name = k.table_name
		WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name)
FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = $1 ORDER BY c.ordinal_position`
	for _, table := range []string{"cron_jobs", "cron_runs", "cron_lease", "audit_log"} {
		want, got := columns(lite.Reader(), liteQ, table), columns(pg.Reader(), pgQ, table)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s on PostgreSQL:\n%s\nwant, as in state.db:\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
