package config

import (
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// A home's state.db that is Hermes Agent's (built from its DDL) or
// another program's is left alone: hermes's state goes to
// hermes-state.db, and stays there. A state.db of hermes's, stamped or
// from before the stamp, or none at all, is state.db.
func TestStateFile(t *testing.T) {
	ddl, err := os.ReadFile("testdata/hermes/state_v22.sql")
	if err != nil {
		t.Fatal(err)
	}
	build := func(t *testing.T, dir string, stmts ...string) {
		t.Helper()
		db, err := sql.Open("sqlite", filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%.60s: %v", s, err)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"no state.db", nil, "state.db"},
		{"Hermes Agent's", []string{string(ddl)}, "hermes-state.db"},
		{"hermes's, stamped", []string{"CREATE TABLE sessions (id TEXT)", "PRAGMA application_id = 1213353299"}, "state.db"},
		{"hermes's, from before the stamp", []string{"CREATE TABLE sessions (id TEXT, started_at INTEGER)"}, "state.db"},
		{"another program's", []string{"CREATE TABLE t (x)", "PRAGMA application_id = 7"}, "hermes-state.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.stmts != nil {
				build(t, dir, tc.stmts...)
			}
			if got := filepath.Base(PathsFor(dir).StateDB); got != tc.want {
				t.Errorf("state file %s, want %s", got, tc.want)
			}
		})
	}
	if StateAppID != binary.BigEndian.Uint32([]byte("HRMS")) {
		t.Errorf("StateAppID %#x is not \"HRMS\"", StateAppID)
	}
	// Once hermes keeps its state beside Hermes's, it stays there.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hermes-state.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(PathsFor(dir).StateDB); got != "hermes-state.db" {
		t.Errorf("with hermes-state.db present: %s", got)
	}
}
