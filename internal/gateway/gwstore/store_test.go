package gwstore

import (
	"os"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// t0 is the tests' start time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// each runs f on every backend (dbtest.EachTarget), each with a new
// database, a store over it on a fake clock at t0, and the database's
// place for a second store (another process, another replica).
func each(t *testing.T, f func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target)) {
	t.Helper()
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		clk := clock.NewFake(t0)
		f(t, storeAt(t, x, clk), clk, x)
	})
}

// storeAt opens the database at x as another process would, with its
// own connections.
func storeAt(t *testing.T, x dbtest.Target, clk clock.Clock) *Store {
	t.Helper()
	return New(x.Open(t), Options{Clock: clk})
}
