package gateway_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// TestAuthorizerWithStore: pairings in state.db authorize their user on
// their platform only, from approval until revocation; a code that
// expired or was guessed during the lock authorizes no one.
func TestAuthorizerWithStore(t *testing.T) {
	ctx := t.Context()
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	st := gwstore.New(db, gwstore.Options{Clock: clk})
	a := gateway.Authorizer{Pairings: st}
	allowed := func(platform, user string) bool {
		t.Helper()
		ok, _, err := a.Allowed(ctx, platform, user)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	code := func(user string) string {
		t.Helper()
		c, _, err := st.RequestCode(ctx, "telegram", user)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	late := code("1")
	clk.Advance(gwstore.CodeTTL)
	if _, err := st.Approve(ctx, "telegram", late); err == nil || allowed("telegram", "1") {
		t.Errorf("an expired code approved: %v", err)
	}

	if _, err := st.Approve(ctx, "telegram", code("2")); err != nil {
		t.Fatal(err)
	}
	if !allowed("telegram", "2") {
		t.Error("a paired user is denied")
	}
	if allowed("email", "2") || allowed("telegram", "20") || allowed("telegram", "") {
		t.Error("a pairing allows another platform or user")
	}
	if err := st.Revoke(ctx, "telegram", "2"); err != nil {
		t.Fatal(err)
	}
	if allowed("telegram", "2") {
		t.Error("a revoked user is allowed")
	}

	right := code("3")
	for range gwstore.MaxFailures {
		st.Approve(ctx, "telegram", "ZZZZZZZZ")
	}
	if _, err := st.Approve(ctx, "telegram", right); err == nil || allowed("telegram", "3") {
		t.Errorf("a code guessed during the lock approved: %v", err)
	}
}
