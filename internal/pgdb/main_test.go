package pgdb

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
