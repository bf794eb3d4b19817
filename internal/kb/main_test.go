package kb

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// eachBackend runs f as a subtest per backend (sqlite, postgres), so
// the knowledge base's suite holds both to the same behaviour.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	for _, b := range dbtest.Backends() {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}
