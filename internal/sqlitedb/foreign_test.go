package sqlitedb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
)

// Open stamps hermes's files with its application id, and refuses, with
// nothing written, a file that is Hermes Agent's state.db.
func TestOpenStampsAndRefusesForeignFiles(t *testing.T) {
	if AppID != config.StateAppID {
		t.Fatalf("AppID %#x and config.StateAppID %#x differ", AppID, config.StateAppID)
	}
	ctx := context.Background()
	dir := t.TempDir()
	own := filepath.Join(dir, "own.db")
	db, err := Open(ctx, own, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.Reader().QueryRow(`PRAGMA application_id`).Scan(&id); err != nil || id != AppID {
		t.Errorf("application_id %#x, %v; want %#x", id, err, AppID)
	}
	db.Close()

	ddl, err := os.ReadFile("../config/testdata/hermes/state_v22.sql")
	if err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "state.db")
	conn, err := sql.Open("sqlite", theirs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(string(ddl)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	before, _ := os.ReadFile(theirs)
	if _, err := Open(ctx, theirs, Options{}); !errors.Is(err, ErrForeign) {
		t.Fatalf("Open of Hermes Agent's state.db: %v, want ErrForeign", err)
	}
	if after, _ := os.ReadFile(theirs); !bytes.Equal(before, after) {
		t.Error("Open changed Hermes Agent's state.db")
	}
}
