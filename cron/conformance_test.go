package cron_test

import (
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/cron/crontest"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

func TestConformance(t *testing.T) {
	crontest.Run(t, func(t *testing.T, clk clock.Clock) cron.JobStore {
		db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		st, err := cron.NewStore(db, cron.StoreOptions{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
