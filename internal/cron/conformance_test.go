package cron_test

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/cron/crontest"
	"github.com/hermes-go/hermes/internal/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// TestConformance runs the job store suite on both backends, each of its
// tests on a new database.
func TestConformance(t *testing.T) {
	for _, b := range dbtest.Backends() {
		t.Run(b, func(t *testing.T) {
			crontest.Run(t, func(t *testing.T, clk clock.Clock) cron.JobStore {
				st, err := cron.NewStore(dbtest.Open(t, b), cron.StoreOptions{Clock: clk})
				if err != nil {
					t.Fatal(err)
				}
				return st
			})
		})
	}
}
