package sqlexec

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		driver  string
		q       Query
		wantErr string // "" for a valid query
	}{
		{"sqlite placeholders", "sqlite", Query{Query: "SELECT * FROM t WHERE a = ? AND b = ?", Args: []string{"{{.a}}", "{{.b}}"}}, ""},
		{"question mark in a literal is not a placeholder", "sqlite", Query{Query: "SELECT * FROM t WHERE a = ? AND b = 'why?'", Args: []string{"{{.a}}"}}, ""},
		{"question mark in a comment is not a placeholder", "mysql", Query{Query: "SELECT * FROM t -- really?\nWHERE a = ? /* and b? */", Args: []string{"{{.a}}"}}, ""},
		{"mysql backslash-escaped quote", "mysql", Query{Query: `SELECT 'it\'s?' FROM t WHERE a = ?`, Args: []string{"{{.a}}"}}, ""},
		{"missing arg", "sqlite", Query{Query: "SELECT * FROM t WHERE a = ? AND b = ?", Args: []string{"{{.a}}"}}, "2 placeholder(s)"},
		{"extra arg", "mysql", Query{Query: "SELECT 1", Args: []string{"{{.a}}"}}, "0 placeholder(s)"},
		{"postgres $1..$3", "postgres", Query{Query: "SELECT * FROM t WHERE a = $1 AND b = $2 OR c = $3", Args: []string{"a", "b", "c"}}, ""},
		{"postgres repeated $1 counts once", "postgres", Query{Query: "SELECT $1::int + $1::int, $2", Args: []string{"a", "b"}}, ""},
		{"postgres gap", "postgres", Query{Query: "SELECT $1, $3", Args: []string{"a", "b", "c"}}, "skip $2"},
		{"postgres $0", "postgres", Query{Query: "SELECT $0", Args: []string{"a"}}, "number them from $1"},
		{"postgres ? is an operator", "postgres", Query{Query: "SELECT data ? 'k' FROM t WHERE id = $1", Args: []string{"a"}}, ""},
		{"postgres dollar quoting hides $2", "postgres", Query{Query: "SELECT $$ costs $2 $$, $1", Args: []string{"a"}}, ""},
		{"postgres tagged dollar quoting", "postgres", Query{Query: "SELECT $fn$ it's $2 $fn$ || $1", Args: []string{"a"}}, ""},
		{"postgres placeholder in a literal", "postgres", Query{Query: "SELECT '$2', $1", Args: []string{"a"}}, ""},
		{"postgres identifier with dollar", "postgres", Query{Query: "SELECT a$1 FROM t"}, ""},
		{"sqlite numbered placeholders", "sqlite", Query{Query: "SELECT ?1", Args: []string{"a"}}, "numbered"},
		{"neither query nor read_only", "sqlite", Query{}, "needs a query"},
		{"read_only without query", "postgres", Query{ReadOnly: true}, ""},
		{"read_only without query takes no args", "postgres", Query{ReadOnly: true, Args: []string{"a"}}, "binds no args"},
		{"read_only with a reading query", "sqlite", Query{ReadOnly: true, Query: "SELECT * FROM t WHERE id = ?", Args: []string{"a"}}, ""},
		{"read_only with a writing query", "sqlite", Query{ReadOnly: true, Query: "DELETE FROM t WHERE id = ?", Args: []string{"a"}}, "DELETE statements are not accepted"},
		{"two statements", "sqlite", Query{Query: "DELETE FROM t; DROP TABLE t"}, "more than one statement"},
		{"trailing semicolon is one statement", "sqlite", Query{Query: "DELETE FROM t;  -- done"}, ""},
		{"semicolon in a literal", "sqlite", Query{Query: "INSERT INTO t VALUES ('a;b')"}, ""},
		{"negative max_rows", "sqlite", Query{Query: "SELECT 1", MaxRows: -1}, "max_rows"},
		{"unknown driver", "oracle", Query{Query: "SELECT 1"}, "not supported"},
		{"driver alias", "postgresql", Query{Query: "SELECT $1", Args: []string{"a"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.q, tt.driver)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check = %v, want no error", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Check = nil, want an error containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Check = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckRead(t *testing.T) {
	tests := []struct {
		driver, stmt string
		ok           bool
	}{
		{"sqlite", "SELECT * FROM t", true},
		{"sqlite", "  select 1;", true},
		{"sqlite", "(SELECT 1) UNION (SELECT 2)", true},
		{"sqlite", "/* why */ WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"sqlite", "VALUES (1), (2)", true},
		{"sqlite", "EXPLAIN QUERY PLAN SELECT 1", true},
		{"sqlite", "PRAGMA table_info(t)", true},
		{"sqlite", "PRAGMA main.index_list('t')", true},
		{"sqlite", "PRAGMA user_version", true},
		{"sqlite", "PRAGMA user_version = 3", false},
		{"sqlite", "PRAGMA query_only(0)", false},
		{"sqlite", "PRAGMA query_only = 0", false},
		{"sqlite", "PRAGMA writable_schema", false},
		{"sqlite", "DELETE FROM t", false},
		{"sqlite", "SELECT 1; DROP TABLE t", false},
		{"sqlite", "SELECT 1 -- ; DROP TABLE t", true},
		{"sqlite", "ATTACH DATABASE '/tmp/x.db' AS x", false},
		{"sqlite", "SHOW TABLES", false},
		{"sqlite", "", false},
		{"sqlite", " ; ", false},
		{"mysql", "SHOW TABLES", true},
		{"mysql", "SELECT * FROM t INTO OUTFILE '/tmp/x'", false},
		{"mysql", "PRAGMA table_info(t)", false},
		{"postgres", "SELECT '; DROP TABLE t'", true},
		{"postgres", "SELECT $$;$$ ; DROP TABLE t", false},
		{"postgres", "UPDATE t SET a = 1", false},
		{"postgres", "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", true}, // left to the read-only transaction
	}
	for _, tt := range tests {
		err := checkRead(code(tt.stmt, tt.driver), tt.driver)
		if (err == nil) != tt.ok {
			t.Errorf("%s: checkRead(%q) = %v, want ok %v", tt.driver, tt.stmt, err, tt.ok)
		}
	}
}

func TestCodeKeepsOffsetsAndHidesLiterals(t *testing.T) {
	stmt := "SELECT 'a?;' AS \"b;?\", x -- c?;\nFROM t /* ?; /* nested */ still? */ WHERE y = ?"
	c := code(stmt, "postgres")
	if len(c) != len(stmt) {
		t.Fatalf("len(code) = %d, want %d", len(c), len(stmt))
	}
	if n := strings.Count(c, "?"); n != 1 {
		t.Errorf("code(%q) = %q has %d '?', want 1 (only the placeholder)", stmt, c, n)
	}
	if strings.Contains(c, ";") {
		t.Errorf("code(%q) = %q still has a ';'", stmt, c)
	}
	if got := trimStatement("SELECT 'a' ; -- end", code("SELECT 'a' ; -- end", "sqlite")); got != "SELECT 'a'" {
		t.Errorf("trimStatement = %q, want %q", got, "SELECT 'a'")
	}
}

func TestReturnsRows(t *testing.T) {
	tests := map[string]bool{
		"SELECT 1":                              true,
		"with x as (select 1) select * from x":  true,
		"INSERT INTO t VALUES (1)":              false,
		"INSERT INTO t VALUES (1) RETURNING id": true,
		"UPDATE t SET a = 'returning'":          false,
		"DELETE FROM t WHERE a = ? RETURNING *": true,
		"CREATE TABLE t (a int)":                false,
		"PRAGMA table_info(t)":                  true,
	}
	for stmt, want := range tests {
		if got := returnsRows(code(stmt, "sqlite")); got != want {
			t.Errorf("returnsRows(%q) = %v, want %v", stmt, got, want)
		}
	}
}
