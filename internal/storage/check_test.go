package storage_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/internal/storage"
)

// sessionStore is the session store of db's backend.
func sessionStore(t *testing.T, db sqldb.DB) session.Store {
	t.Helper()
	var s session.Store
	var err error
	if db.Dialect() == sqldb.SQLite {
		s, err = sqlite.New(db.(*sqlitedb.DB), sqlite.Options{})
	} else {
		s, err = postgres.New(db, postgres.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckFindsMalformedHistory plants, on each backend, a tool result
// whose call was never made, a session whose message count is off,
// messages of a session that does not exist and an old schema version,
// and expects Check to name each, after passing the same database
// before.
func TestCheckFindsMalformedHistory(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db sqldb.DB) {
		ctx := t.Context()
		store := sessionStore(t, db)
		good, bad := &session.Session{Source: "cli"}, &session.Session{Source: "cli"}
		for _, s := range []*session.Session{good, bad} {
			if err := store.Create(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		call := &session.Message{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_ok", Name: "terminal", Arguments: "{}"})}
		if err := store.Append(ctx, good.ID, &session.Message{Message: llm.UserMessage("hi")}, call,
			&session.Message{Message: llm.ToolResultMessage("call_ok", "terminal", "done")}); err != nil {
			t.Fatal(err)
		}
		if r, err := storage.Check(ctx, db); err != nil || len(r.Problems) != 0 {
			t.Fatalf("check of a sound database: %v %v", err, r.Problems)
		}

		// A result of a call made in another session, and one of a call
		// made only after it.
		if err := store.Append(ctx, bad.ID, &session.Message{Message: llm.UserMessage("hi")},
			&session.Message{Message: llm.ToolResultMessage("call_ok", "terminal", "stray")},
			&session.Message{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_late", Name: "terminal", Arguments: "{}"})},
			&session.Message{Message: llm.ToolResultMessage("call_late", "terminal", "fine")}); err != nil {
			t.Fatal(err)
		}
		exec(t, db, `UPDATE sessions SET message_count = 7 WHERE id = '`+good.ID+`'`)
		if db.Dialect() == sqldb.SQLite {
			exec(t, db, `UPDATE schema_version SET version = 1`)
		} else {
			exec(t, db, `DELETE FROM schema_versions WHERE name = 'sessions' AND version > 1`)
		}
		if db.Dialect() == sqldb.SQLite {
			exec(t, db, `PRAGMA foreign_keys = OFF`,
				`INSERT INTO messages (session_id, role, timestamp) VALUES ('ghost', 'user', 1)`, `PRAGMA foreign_keys = ON`)
		} else {
			err := db.WriteTx(ctx, "plant", func(tx *sql.Tx) error {
				if _, err := tx.Exec(`SET LOCAL session_replication_role = replica`); err != nil {
					return err
				}
				_, err := tx.Exec(`INSERT INTO messages (session_id, role, created_at, search_text) VALUES ('ghost', 'user', 1, '')`)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}

		r, err := storage.Check(ctx, db)
		if !errors.Is(err, storage.ErrProblems) {
			t.Fatalf("check of a damaged database: err %v, want ErrProblems", err)
		}
		var found []string
		for _, p := range r.Problems {
			found = append(found, p.String())
		}
		all := strings.Join(found, "\n")
		for _, want := range []string{
			"tool_result_without_call: session " + bad.ID + " message",
			`answers tool call "call_ok"`,
			"message_count: session " + good.ID + " says it has 7 messages but has 3",
			"orphan_messages: 1 messages belong to session ghost",
			" is at version 1; this hermes knows ",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("problems lack %q:\n%s", want, all)
			}
		}
		if strings.Contains(all, "call_late") {
			t.Errorf("a result following its call was reported:\n%s", all)
		}
		if db.Dialect() == sqldb.SQLite && !strings.Contains(all, "foreign_key: messages row") {
			t.Errorf("SQLite's foreign_key_check did not report the orphan:\n%s", all)
		}
	})
}

// exec runs statements on db's writer.
func exec(t *testing.T, db sqldb.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Writer().ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
