package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestPostgres shares one server among its subtests: starting one takes
// a second or two.
func TestPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	db, err := Open(ctx, Connection{Driver: "postgresql", DSN: "${PG_DSN}"}, "", envOf(map[string]string{"PG_DSN": srv.DSN()}))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	for _, stmt := range []string{
		"CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL, price numeric(10,2), tags text[], meta jsonb, seen timestamptz, uid uuid)",
		"INSERT INTO t (name, price, tags, meta, seen, uid) VALUES " +
			"('ann', 1.50, '{a,b}', '{\"k\": 1}', '2026-01-02T03:04:05Z', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), " +
			"('bob', NULL, NULL, NULL, NULL, NULL), ('cy', 3, NULL, NULL, NULL, NULL)",
	} {
		if _, err := db.Run(ctx, Query{Query: stmt}, nil, ""); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	t.Run("fixed query with $1 and $2", func(t *testing.T) {
		q := Query{Query: "SELECT id, name, price, tags, meta, seen, uid, seen::date AS day FROM t WHERE id >= $1 AND name <> $2 ORDER BY id", Args: []string{"a", "b"}}
		if err := Check(q, "postgres"); err != nil {
			t.Fatalf("Check: %v", err)
		}
		res, err := db.Run(ctx, q, []any{1, "bob"}, "")
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := `{"columns":["id","name","price","tags","meta","seen","uid","day"],"rows":[` +
			`[1,"ann",1.50,["a","b"],{"k":1},"2026-01-02T03:04:05Z","a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","2026-01-02"],` +
			`[3,"cy",3.00,null,null,null,null,null]],"row_count":2}`
		if got := asJSON(t, res); got != want {
			t.Errorf("result\n got %s\nwant %s", got, want)
		}
	})

	// lib/pq hands most values over as text; each type must still reach
	// the model as the JSON it means.
	t.Run("values become JSON by column type", func(t *testing.T) {
		cols := []struct{ expr, want string }{
			{"1.50::numeric", `1.50`},
			{"'NaN'::numeric", `"NaN"`},
			{"2.5::float8", `2.5`},
			{"7::int2", `7`},
			{"true", `true`},
			{`'{"a": [1, 2]}'::json`, `{"a":[1,2]}`},
			{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`},
			{"'{1,NULL,3}'::int4[]", `[1,null,3]`},
			{`ARRAY['x y', 'q"r', 'back\slash', NULL, 'NULL', '']`, `["x y","q\"r","back\\slash",null,"NULL",""]`},
			{"'{t,f}'::bool[]", `[true,false]`},
			{"'{1.5,2,NaN}'::numeric[]", `[1.5,2,"NaN"]`},
			{`ARRAY['{"k": 1}'::jsonb]`, `[{"k":1}]`},
			{"'{{1,2},{3,4}}'::int8[]", `[[1,2],[3,4]]`},
			{"'{}'::text[]", `[]`},
			{"'{2026-01-02}'::date[]", `["2026-01-02"]`},
			// Explicit bounds and element types left alone keep the text.
			{"'[0:1]={1,2}'::int4[]", `"[0:1]={1,2}"`},
			{"ARRAY['2026-01-02 03:04:05+00'::timestamptz]", `"{\"2026-01-02 03:04:05+00\"}"`},
			{"'2026-01-02 03:04:05.5'::timestamp", `"2026-01-02T03:04:05.5Z"`},
			{"'2026-01-02 03:04:05+02'::timestamptz", `"2026-01-02T01:04:05Z"`},
			{"'infinity'::timestamptz", `"infinity"`},
			{"'2026-01-02'::date", `"2026-01-02"`},
			{"'03:04:05.25'::time", `"03:04:05.25"`},
			{"'03:04:05+02'::timetz", `"03:04:05+02:00"`},
			{"interval '1 day 2 hours'", `"1 day 02:00:00"`},
			{`'\x00ff'::bytea`, `"AP8="`},
			{"'hi'::bytea", `"hi"`},
		}
		exprs := make([]string, len(cols))
		want := make([]string, len(cols))
		for i, c := range cols {
			exprs[i] = fmt.Sprintf("%s AS c%d", c.expr, i)
			want[i] = c.want
		}
		res, err := db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT "+strings.Join(exprs, ", "))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("result = %s; want one row", asJSON(t, res))
		}
		for i, v := range res.Rows[0] {
			if got := asJSON(t, v); got != want[i] {
				t.Errorf("%s = %s; want %s", cols[i].expr, got, want[i])
			}
		}
	})

	t.Run("constraint violation is invalid_arguments with the server's detail", func(t *testing.T) {
		_, err := db.Run(ctx, Query{Query: "INSERT INTO t (id, name) VALUES ($1, $2)", Args: []string{"id", "name"}}, []any{1, "dup"}, "")
		te, ok := tool.AsError(err)
		if !ok || te.Code != tool.CodeInvalidArguments {
			t.Fatalf("Run = %v; want invalid_arguments", err)
		}
		for _, want := range []string{"duplicate key value violates unique constraint", "23505", "Key (id)=(1) already exists"} {
			if !strings.Contains(te.Message, want) {
				t.Errorf("message %q does not contain %q", te.Message, want)
			}
		}
	})

	// pgtest's server has no TLS: a DSN without sslmode must fall back to
	// plain TCP, as libpq does, and a key=value DSN must work as a URL does.
	t.Run("key=value DSN without sslmode", func(t *testing.T) {
		kv, err := Open(ctx, Connection{Driver: "pg", DSN: fmt.Sprintf("host=127.0.0.1 port=%d user=hermes dbname=hermes_test", srv.Port())}, "", nil)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer kv.Close()
		res, err := kv.Run(ctx, Query{ReadOnly: true}, nil, "SELECT count(*) FROM t")
		if err != nil || asJSON(t, res.Rows) != `[[3]]` {
			t.Errorf("count = %v, %v; want [[3]]", res, err)
		}
	})

	// The server answering a login with an error is still not reaching the
	// database: nothing the model wrote was run.
	t.Run("unknown database is upstream_unavailable", func(t *testing.T) {
		dsn := fmt.Sprintf("postgres://hermes:hunter2-s3cret@127.0.0.1:%d/no_such_db?sslmode=disable", srv.Port())
		bad, err := Open(ctx, Connection{Driver: "postgres", DSN: dsn}, "", nil)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer bad.Close()
		_, err = bad.Run(ctx, Query{ReadOnly: true}, nil, "SELECT 1")
		te, ok := tool.AsError(err)
		if !ok || te.Code != tool.CodeUpstreamUnavailable || !te.Retryable {
			t.Fatalf("Run = %v; want upstream_unavailable, retryable", err)
		}
		if !strings.Contains(te.Message, `"no_such_db" does not exist`) || strings.Contains(te.Message, "hunter2") {
			t.Errorf("message %q; want the server's reason without the password", te.Message)
		}
	})

	t.Run("fixed write reports rows_affected", func(t *testing.T) {
		res, err := db.Run(ctx, Query{Query: "UPDATE t SET price = $1 WHERE price IS NULL", Args: []string{"p"}}, []any{"9.99"}, "")
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.RowsAffected == nil || *res.RowsAffected != 1 {
			t.Errorf("result = %s; want rows_affected 1", asJSON(t, res))
		}
	})

	t.Run("read_only free SELECT with a row cap", func(t *testing.T) {
		// generate_series in the select list streams its rows: read to
		// the end, these 200 million take half a minute or more, so a
		// prompt answer means the statement was cancelled.
		start := time.Now()
		res, err := db.Run(ctx, Query{ReadOnly: true, MaxRows: 2}, nil, "SELECT generate_series(1, 200000000) AS g")
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if !res.Truncated || asJSON(t, res.Rows) != `[[1],[2]]` {
			t.Errorf("result = %s; want [[1],[2]], truncated", asJSON(t, res))
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("a truncated read took %s; the statement was read to its end rather than cancelled", d)
		}
		// The pool still works after the abandoned statement.
		res, err = db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT count(*) FROM t")
		if err != nil || asJSON(t, res.Rows) != `[[3]]` {
			t.Errorf("count after a truncated read = %v, %v; want [[3]]", res, err)
		}
	})

	t.Run("read-only transaction refuses a data-modifying CTE", func(t *testing.T) {
		for _, stmt := range []string{
			"WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
			"SELECT set_config('transaction_read_only', 'off', false), (SELECT 1)",
			"SELECT nextval('t_id_seq')",
		} {
			_, err := db.Run(ctx, Query{ReadOnly: true}, nil, stmt)
			te, ok := tool.AsError(err)
			if !ok || te.Code != tool.CodeInvalidArguments || !strings.Contains(te.Message, "read-") {
				t.Errorf("Run(%q) = %v; want invalid_arguments from the read-only transaction", stmt, err)
			}
		}
		res, err := db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT count(*) FROM t")
		if err != nil || asJSON(t, res.Rows) != `[[3]]` {
			t.Errorf("count after the refused statements = %v, %v; want [[3]]", res, err)
		}
	})

	t.Run("syntax error is invalid_arguments", func(t *testing.T) {
		_, err := db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT FROM WHERE")
		if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeInvalidArguments || !strings.Contains(te.Message, "syntax error") {
			t.Errorf("Run = %v; want invalid_arguments with the server's syntax error", err)
		}
	})

	t.Run("timeout returns promptly", func(t *testing.T) {
		tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := db.Run(tctx, Query{ReadOnly: true}, nil, "SELECT pg_sleep(60)")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run = %v; want an error wrapping context.DeadlineExceeded", err)
		}
		// Generous: the point is that the statement was cancelled rather
		// than waited out.
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("Run took %s after a 200ms deadline", d)
		}
		res, err := db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT 1")
		if err != nil || asJSON(t, res.Rows) != `[[1]]` {
			t.Errorf("SELECT 1 after the timeout = %v, %v", res, err)
		}
	})
}
