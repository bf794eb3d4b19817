package main

import (
	"testing"

	"github.com/hermes-go/hermes/internal/inittrace"
)

// module is hermes's module path; its packages and main are hermes's own.
const module = "github.com/hermes-go/hermes"

// TestInitAllocatesNothingOfHermes runs `hermes version` with
// GODEBUG=inittrace=1 and fails when a package of hermes allocates while
// it is initialized. Go initializes every linked package before main, so
// a regular expression compiled or a map filled at package level is paid
// for by every command, even this one; such tables are built on first use
// (internal/lazy) instead.
func TestInitAllocatesNothingOfHermes(t *testing.T) {
	h := newHome(t)
	r := h.run([]string{"version"}, "GODEBUG=inittrace=1")
	if r.code != 0 {
		t.Fatalf("hermes version exited %d: %s", r.code, r.stderr)
	}
	inits, err := inittrace.Parse(r.stderr)
	if err != nil {
		t.Fatal(err)
	}
	// The runtime always reports some packages; none means the trace
	// was not read, and the test would pass for the wrong reason.
	if len(inits) == 0 {
		t.Fatalf("no init lines in the stderr of hermes version under GODEBUG=inittrace=1:\n%s", r.stderr)
	}
	for _, in := range inits {
		if inittrace.Own(module, in.Package) && (in.Bytes > 0 || in.Allocs > 0) {
			t.Errorf("%s allocates at init: %d bytes in %d allocs, %.3f ms; build its tables on first use (internal/lazy, a switch, a slice literal)",
				in.Package, in.Bytes, in.Allocs, in.Clock)
		}
	}
}
