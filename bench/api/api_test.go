package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

// Both phases at a tiny scale, through the real binary, so the program
// cannot rot: under the limit every request comes back whole and its
// overhead is measured; over it the rest get 429 and none a 5xx.
func TestPhasesTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs hermes serve")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "hermes")
	if err := ship.Build(bin, "./cmd/hermes", "../.."); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	o := options{loadOptions: loadOptions{conc: 6, rounds: 1, stateful: 2, settle: time.Millisecond},
		think: 20 * time.Millisecond, bin: bin, log: log}

	p, m, err := load(o, dir, 16)
	if err != nil {
		t.Fatal(err)
	}
	u := countUnder(p, m)
	if u.n != 6 || u.errors != 0 || len(u.overhead[0]) != 3 || len(u.overhead[1]) != 3 {
		data, _ := os.ReadFile(log.Name())
		t.Errorf("under the limit: %d requests, %d errors (first: %v), %d stateless and %d stateful overheads; want 6, 0, 3, 3; serve's log:\n%s",
			u.n, u.errors, u.firstErr, len(u.overhead[0]), len(u.overhead[1]), data)
	}

	p, _, err = load(o, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := countOver(p); v.whole < 1 || v.limited < 1 || v.whole+v.limited != 6 {
		t.Errorf("over the limit of 1: %+v; want at least one whole 200, the rest 429", v)
	}
}
