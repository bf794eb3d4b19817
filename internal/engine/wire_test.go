package engine

import (
	"fmt"
	"testing"
)

// A session keeps its wire cache from turn to turn, sessions do not share
// one, and a long-running process keeps at most maxWires of them.
func TestWireCachePerSession(t *testing.T) {
	e := &Engine{}
	a, b := e.wire("a"), e.wire("b")
	if a == nil || a == b || e.wire("a") != a {
		t.Fatalf("wire(a) = %p, wire(b) = %p, wire(a) again = %p: want one cache per session, kept", a, b, e.wire("a"))
	}
	for i := range 3 * maxWires {
		e.wire(fmt.Sprint("s", i))
	}
	if n := len(e.wires); n > maxWires {
		t.Errorf("%d wire caches kept, want at most %d", n, maxWires)
	}
}
