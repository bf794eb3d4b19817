package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// openTemp opens a new state.db in the test's temporary directory.
func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// versions reads every schema's version.
func versions(t *testing.T, q querier) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, s := range schemas {
		v, err := s.version(context.Background(), q)
		if err != nil {
			t.Fatalf("%s version: %v", s.name, err)
		}
		out[s.name] = v
	}
	return out
}

// current is every schema at its latest version.
func current() map[string]int {
	out := map[string]int{}
	for _, s := range schemas {
		out[s.name] = len(s.migrations)
	}
	return out
}

// TestOpenCreatesEverySchema: a new file gets the tables of every store,
// each schema's version recorded where its store reads it.
func TestOpenCreatesEverySchema(t *testing.T) {
	db, _ := openTemp(t)
	if got, want := versions(t, db.Reader()), current(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("versions = %v, want %v", got, want)
	}
	for _, table := range []string{"sessions", "messages", "facts", "cron_jobs", "cron_runs", "cron_lease",
		"gateway_seen", "gateway_pairing_codes", "gateway_pairings", "gateway_pairing_locks", "gateway_sessions",
		"gateway_mail_cursors", "gateway_mail_threads", "team_runs", "team_tasks", "team_task_inputs", "team_artifacts",
		"kb_bases", "kb_sources", "kb_chunks"} {
		if ok, err := tableExists(t.Context(), db.Reader(), table); err != nil || !ok {
			t.Errorf("table %s: %v, %v", table, ok, err)
		}
	}
	// state_meta exists before the fact and cron schemas run, so their
	// fallback tables are never made.
	for _, table := range []string{"facts_meta", "cron_meta", "gateway_meta", "team_meta", "kb_meta"} {
		if ok, _ := tableExists(t.Context(), db.Reader(), table); ok {
			t.Errorf("a new file has %s", table)
		}
	}
}

// TestOpenConcurrently opens one new file from several goroutines at once,
// as processes starting together do: every schema is created once.
func TestOpenConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			db, err := Open(t.Context(), path, Options{})
			if err != nil {
				t.Errorf("Open: %v", err)
				return
			}
			defer db.Close()
			err = db.WriteTx(t.Context(), "insert", func(tx *sql.Tx) error {
				_, err := tx.Exec(`INSERT INTO sessions (id, started_at) VALUES (?, 1)`, fmt.Sprint("s", i))
				return err
			})
			if err != nil {
				t.Errorf("WriteTx: %v", err)
			}
		})
	}
	wg.Wait()
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := versions(t, db.Reader()), current(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("versions = %v, want %v", got, want)
	}
	var rows, sessions int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM schema_version`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("schema_version has %d rows, %v; want 1", rows, err)
	}
	if err := db.Reader().QueryRow(`SELECT count(*) FROM sessions`).Scan(&sessions); err != nil || sessions != 6 {
		t.Errorf("%d sessions, %v; want 6", sessions, err)
	}
}

// TestOpenRejectsNewerSchema refuses a file one of whose schemas a newer
// program migrated, naming the schema.
func TestOpenRejectsNewerSchema(t *testing.T) {
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			db, path := openTemp(t)
			err := db.WriteTx(t.Context(), "set version", func(tx *sql.Tx) error {
				return s.writeVersion(t.Context(), tx, 99)
			})
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			db, err = Open(t.Context(), path, Options{})
			if err == nil {
				db.Close()
			}
			if err == nil || !strings.Contains(err.Error(), s.name+" schema version 99 is newer") {
				t.Errorf("Open of a file at %s version 99: %v, want an error saying it is newer", s.name, err)
			}
		})
	}
}

// TestReaderIsReadOnly: a write slipped onto the read pool fails instead
// of running outside the writer's lock.
func TestReaderIsReadOnly(t *testing.T) {
	db, _ := openTemp(t)
	if _, err := db.Reader().Exec(`INSERT INTO state_meta (key, value) VALUES ('k', 'v')`); err == nil {
		t.Error("the read pool accepted a write")
	}
}

// TestWriteTxCountsForCheckpoints: every store's writes go through
// WriteTx, which counts them toward the periodic checkpoint.
func TestWriteTxCountsForCheckpoints(t *testing.T) {
	db, _ := openTemp(t)
	before := db.writes.Load()
	for i := range checkpointEvery + 1 {
		err := db.WriteTx(t.Context(), "write", func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO state_meta (key, value) VALUES (?, 'v')`, fmt.Sprint("k", i))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := db.writes.Load() - before; n != checkpointEvery+1 {
		t.Errorf("%d writes counted, want %d", n, checkpointEvery+1)
	}
}

// TestIndexMessages: stored messages enter the full-text indexes when
// IndexMessages runs, each once; the trigram index takes those the writer
// flagged as CJK or, unflagged, whose text holds CJK. Deleting and
// changing messages, indexed or not yet, keeps both indexes consistent.
func TestIndexMessages(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	rows := []struct {
		content string
		cjk     any
		trigram bool
	}{
		{"数据库迁移 flagged", 1, true},
		{"数据库迁移 unflagged", nil, true},
		{"plain unflagged", nil, false},
		{"plain flagged", 0, false},
	}
	found := func(table, phrase string) int {
		t.Helper()
		var n int
		// Only rowids: the external content is not read.
		if err := db.Reader().QueryRow(`SELECT count(*) FROM (SELECT rowid FROM `+table+` WHERE `+table+` MATCH ?)`,
			`"`+phrase+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write := func(fn func(tx *sql.Tx) error) {
		t.Helper()
		if err := db.WriteTx(ctx, "test", fn); err != nil {
			t.Fatal(err)
		}
	}
	index := func(want int64) {
		t.Helper()
		write(func(tx *sql.Tx) error {
			n, err := IndexMessages(ctx, tx)
			if err == nil && n != want {
				err = fmt.Errorf("IndexMessages indexed %d messages, want %d", n, want)
			}
			return err
		})
	}
	write(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 0)`); err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content, timestamp, cjk) VALUES ('s', 'user', ?, 0, ?)`, r.content, r.cjk); err != nil {
				return err
			}
		}
		return nil
	})
	if n := found("messages_fts", "flagged"); n != 0 {
		t.Errorf("before IndexMessages, %d messages are in the index", n)
	}
	index(int64(len(rows)))
	index(0)
	for _, r := range rows {
		if n := found("messages_fts", r.content); n != 1 {
			t.Errorf("%q: %d times in messages_fts, want once", r.content, n)
		}
		if n := found("messages_fts_trigram", r.content); (n == 1) != r.trigram || n > 1 {
			t.Errorf("%q with cjk=%v: %d times in the trigram index, want it there: %v", r.content, r.cjk, n, r.trigram)
		}
	}

	write(func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM messages WHERE content = '数据库迁移 flagged'`,                                              // indexed
			`UPDATE messages SET content = '数据库 changed' WHERE content = '数据库迁移 unflagged'`,                     // indexed
			`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', '新的 pending', 0)`, // not yet
			`UPDATE messages SET content = '新的 pending too' WHERE content = '新的 pending'`,
			`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', '删除 pending', 0)`,
			`DELETE FROM messages WHERE content = '删除 pending'`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	index(1) // the one pending message left; the deleted one is skipped
	if found("messages_fts_trigram", "新的 pending too") != 1 || found("messages_fts_trigram", "数据库 changed") != 1 || found("messages_fts", "数据库迁移 flagged") != 0 {
		t.Error("the indexes do not follow the deletes and updates")
	}
	for _, table := range []string{"messages_fts", "messages_fts_trigram"} {
		if _, err := db.Writer().ExecContext(ctx, `INSERT INTO `+table+`(`+table+`) VALUES ('integrity-check')`); err != nil {
			t.Errorf("%s integrity-check: %v", table, err)
		}
	}
}

// TestCJKConstantsAreCJKCond keeps the constants the migrations use equal
// to the condition the code builds at run time.
func TestCJKConstantsAreCJKCond(t *testing.T) {
	for row, c := range map[string]string{"messages": cjkMessages, "new": cjkNew, "old": cjkOld} {
		if c != cjkCond(row) {
			t.Errorf("the constant for %s is %q, cjkCond(%q) is %q", row, c, row, cjkCond(row))
		}
	}
}

// The periodic checkpoint runs beside the writers, on a connection of
// its own, once checkpointEvery writes went through.
func TestCheckpointRunsBesideTheWriters(t *testing.T) {
	db, _ := openTemp(t)
	ran := make(chan error, 10)
	db.ckpt.ran = ran
	db.writes.Store(0)
	for i := range checkpointEvery {
		err := db.WriteTx(t.Context(), "write", func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO state_meta (key, value) VALUES (?, 'v')`, fmt.Sprint("c", i))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("the checkpoint failed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no checkpoint after checkpointEvery writes")
	}
}
