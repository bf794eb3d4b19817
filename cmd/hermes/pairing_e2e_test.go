package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// A code the gateway gave a stranger is listed, approved (once) and the
// pairing revoked from the command line; a wrong code is refused, naming
// it.
func TestPairingCommands(t *testing.T) {
	h := newHome(t)
	if r := h.hermes("pairing", "list"); r.code != 0 || !strings.Contains(r.stdout, "No pairing codes") {
		t.Fatalf("list of a new home: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	db, err := sqlitedb.Open(context.Background(), filepath.Join(h.dir, "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := gwstore.New(db, gwstore.Options{}).RequestCode(context.Background(), "telegram", "4242")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r := h.hermes("pairing", "list"); !strings.Contains(r.stdout, code) || !strings.Contains(r.stdout, "user 4242") {
		t.Errorf("list does not show the waiting code %s:\n%s", code, r.stdout)
	}
	if r := h.hermes("pairing", "approve", "telegram", "ZZZZZZZZ"); r.code == 0 || !strings.Contains(r.stderr, "ZZZZZZZZ") {
		t.Errorf("a wrong code: exit %d, %s", r.code, r.stderr)
	}
	if r := h.hermes("pairing", "approve", "telegram", strings.ToLower(code)); r.code != 0 || !strings.Contains(r.stdout, "Paired user 4242 on telegram") {
		t.Fatalf("approve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.hermes("pairing", "approve", "telegram", code); r.code == 0 {
		t.Error("a code approved twice was accepted again")
	}
	if r := h.hermes("pairing", "list"); !strings.Contains(r.stdout, "paired") || strings.Contains(r.stdout, "waiting") {
		t.Errorf("after approval:\n%s", r.stdout)
	}
	if r := h.hermes("pairing", "revoke", "telegram", "4242"); r.code != 0 {
		t.Fatalf("revoke: exit %d %s", r.code, r.stderr)
	}
	if r := h.hermes("pairing", "list", "--json"); strings.Contains(r.stdout, `"User":"4242"`) {
		t.Errorf("after revoke:\n%s", r.stdout)
	}
}
