package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// released is each schema's version in the release before state.db was
// opened once per process: what files in use today record.
var released = map[string]int{"session": 3, "fact": 1, "cron": 1}

// oldOpen does to a file what opening one store did before Open existed:
// the session store created schema_version and its tables; the fact and
// cron stores created their tables and recorded their version in
// state_meta when it existed, else in their own facts_meta or cron_meta.
// Each store also writes a row, so the test can tell nothing was lost.
var oldOpen = map[string]func(ctx context.Context, tx *sql.Tx) error{
	"session": func(ctx context.Context, tx *sql.Tx) error {
		return execAll(ctx, tx, append(slices.Clone(sessionMigrations[:released["session"]]),
			`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`,
			`INSERT INTO schema_version (version) VALUES (3)`,
			`INSERT INTO sessions (id, source, started_at) VALUES ('old-session', 'cli', 1)`,
			`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old-session', 'user', 'kept 旧的消息', 1)`)...)
	},
	"fact": func(ctx context.Context, tx *sql.Tx) error {
		return execAll(ctx, tx, append(slices.Clone(factMigrations[:released["fact"]]),
			oldVersion(ctx, tx, "facts_meta", "facts_schema_version"),
			`INSERT INTO facts (kind, content, norm, created_at) VALUES ('fact', 'Old fact.', 'old fact', 1)`)...)
	},
	"cron": func(ctx context.Context, tx *sql.Tx) error {
		return execAll(ctx, tx, append(slices.Clone(cronMigrations[:released["cron"]]),
			oldVersion(ctx, tx, "cron_meta", "cron_schema_version"),
			`INSERT INTO cron_jobs (name, spec, source, created_at, updated_at) VALUES ('old-job', '{"schedule":"@daily","prompt":"p"}', 'tool', 1, 1)`)...)
	},
}

// oldVersion is the statements that recorded version 1 of a fact or cron
// schema: in state_meta when the session store had made it, else in the
// store's own table.
func oldVersion(ctx context.Context, tx *sql.Tx, fallback, key string) string {
	table := "state_meta"
	if ok, _ := tableExists(ctx, tx, table); !ok {
		table = fallback
	}
	return `CREATE TABLE IF NOT EXISTS ` + table + ` (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO ` + table + ` (key, value) VALUES ('` + key + `', '1')`
}

func execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return nil
}

// oldFile makes a state.db as the earlier release left it after opening
// the stores in order, each in a transaction of its own, as they were.
func oldFile(t *testing.T, order ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", writerDSN(path, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range order {
		err := writeTx(t.Context(), db, slog.New(slog.DiscardHandler), "old open "+name, func(tx *sql.Tx) error { return oldOpen[name](t.Context(), tx) })
		if err != nil {
			t.Fatalf("old open of %s: %v", name, err)
		}
	}
	return path
}

// holdWriteLock takes the write lock of path from another connection
// until the test ends.
func holdWriteLock(t *testing.T, path string) {
	t.Helper()
	other, err := sql.Open("sqlite", writerDSN(path, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		other.Close()
	})
}

// count is the number of rows of a table.
func count(t *testing.T, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// TestOpenOldFile opens files the earlier release wrote, whichever store
// opened them first: nothing is lost, every version is read where it was
// recorded, and no migration runs again. While the files are at the
// released versions Open must not even take the write lock: another
// connection holds it throughout, and Open would otherwise fail busy.
func TestOpenOldFile(t *testing.T) {
	upToDate := fmt.Sprint(current()) == fmt.Sprint(released)
	for _, order := range [][]string{
		{"session", "fact", "cron"}, // a chat first: versions in state_meta
		{"fact", "cron", "session"}, // versions in facts_meta and cron_meta
		{"cron", "session", "fact"}, // hermes serve first, then a chat
	} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			path := oldFile(t, order...)
			if upToDate {
				holdWriteLock(t, path)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			db, err := Open(ctx, path, Options{BusyTimeout: time.Millisecond})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			if got, want := versions(t, db.Reader()), current(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("versions = %v, want %v", got, want)
			}
			for _, table := range []string{"sessions", "messages", "facts", "cron_jobs"} {
				if n := count(t, db, table); n != 1 {
					t.Errorf("%s has %d rows, want the 1 the old file had", table, n)
				}
			}
			for _, q := range []string{
				`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'kept'`,
				`SELECT count(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH '旧的消'`,
			} {
				var hits int
				if err := db.Reader().QueryRow(q).Scan(&hits); err != nil || hits != 1 {
					t.Errorf("%s: %d, %v; want the old message", q, hits, err)
				}
			}
		})
	}
}

// TestOpenOldFileWithoutSessions: a home where only hermes serve ran has
// the cron tables, versioned in cron_meta, and nothing else. Open adds the
// other stores' tables and leaves the cron tables and their version be.
func TestOpenOldFileWithoutSessions(t *testing.T) {
	path := oldFile(t, "cron")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := versions(t, db.Reader()), current(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("versions = %v, want %v", got, want)
	}
	if n := count(t, db, "cron_jobs"); n != 1 {
		t.Errorf("cron_jobs has %d rows, want 1", n)
	}
	var inMeta, inState int
	db.Reader().QueryRow(`SELECT count(*) FROM cron_meta WHERE key = 'cron_schema_version' AND value = '1'`).Scan(&inMeta)
	db.Reader().QueryRow(`SELECT count(*) FROM state_meta WHERE key = 'cron_schema_version'`).Scan(&inState)
	if inMeta != 1 || inState != 0 {
		t.Errorf("cron version: %d rows in cron_meta, %d in state_meta; want it left in cron_meta", inMeta, inState)
	}
	db.Reader().QueryRow(`SELECT count(*) FROM state_meta WHERE key = 'facts_schema_version'`).Scan(&inState)
	if inState != 1 {
		t.Error("the fact schema created after the session tables did not record its version in state_meta")
	}
}
