package team

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// teamTables are the tables the queue keeps.
var teamTables = []string{"team_runs", "team_tasks", "team_task_inputs", "team_artifacts"}

// column is one column as both databases describe it: its name, its type
// in SQLite's words, whether it may be null, and its place in the primary
// key (0: none).
type column struct {
	name, kind string
	null       bool
	pk         int
}

// TestPostgresTablesMirrorSQLite: PostgreSQL's team tables have
// state.db's columns, in the same order, with the same types, nullability
// and primary keys, so every row of a state.db copies over as it is.
func TestPostgresTablesMirrorSQLite(t *testing.T) {
	if !slices.Contains(dbtest.Backends(), "postgres") || !slices.Contains(dbtest.Backends(), "sqlite") {
		t.Skip("needs both backends")
	}
	lite, pg := dbtest.Open(t, "sqlite"), dbtest.Open(t, "postgres")
	for _, table := range teamTables {
		want, got := sqliteColumns(t, lite, table), postgresColumns(t, pg, table)
		if len(want) == 0 {
			t.Fatalf("state.db has no table %s", table)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s on PostgreSQL:\n%v\nwant, as in state.db:\n%v", table, got, want)
		}
	}
}

func sqliteColumns(t *testing.T, db sqldb.DB, table string) []column {
	rows, err := db.Reader().QueryContext(t.Context(), `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var c column
		var notNull bool
		if err := rows.Scan(&c.name, &c.kind, &notNull, &c.pk); err != nil {
			t.Fatal(err)
		}
		c.kind, c.null = strings.ToUpper(c.kind), !notNull && c.pk == 0
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// postgresKinds are PostgreSQL's types of the SQLite types the mirror
// maps them from.
var postgresKinds = map[string]string{"bigint": "INTEGER", "text": "TEXT", "bytea": "BLOB", "double precision": "REAL"}

func postgresColumns(t *testing.T, db sqldb.DB, table string) []column {
	rows, err := db.Reader().QueryContext(t.Context(), `SELECT c.column_name, c.data_type, c.is_nullable = 'YES',
	COALESCE((SELECT k.ordinal_position FROM information_schema.key_column_usage k
		JOIN information_schema.table_constraints tc ON tc.constraint_name = k.constraint_name AND tc.table_name = k.table_name
		WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name), 0)
FROM information_schema.columns c WHERE c.table_name = ? AND c.is_generated = 'NEVER' ORDER BY c.ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.kind, &c.null, &c.pk); err != nil {
			t.Fatal(err)
		}
		if k, ok := postgresKinds[c.kind]; ok {
			c.kind = k
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
