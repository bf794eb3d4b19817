package inittrace

import (
	"strings"
	"testing"
)

const sample = `hermes dev
init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs
init runtime @0.040 ms, 0.052 ms clock, 0 bytes, 0 allocs
init github.com/hermes-go/hermes/internal/llm @8.9 ms, 0.12 ms clock, 53096 bytes, 324 allocs
init golang.org/x/net/html @9.1 ms, 0.19 ms clock, 127384 bytes, 41 allocs
init main @9.5 ms, 0.001 ms clock, 16 bytes, 1 allocs
`

func TestParseReadsEveryTraceLine(t *testing.T) {
	inits, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) != 5 {
		t.Fatalf("got %d inits, want 5: %+v", len(inits), inits)
	}
	want := Init{Package: "github.com/hermes-go/hermes/internal/llm", At: 8.9, Clock: 0.12, Bytes: 53096, Allocs: 324}
	if inits[2] != want {
		t.Fatalf("inits[2] = %+v, want %+v", inits[2], want)
	}
}

func TestParseRefusesAChangedFormat(t *testing.T) {
	_, err := Parse("init runtime @0.040 ms, 0.052 ms clock, 0 bytes, 0 allocs, 3 frees\n")
	if err == nil || !strings.Contains(err.Error(), "init PKG @T ms") {
		t.Fatalf("err = %v, want one saying what format is read", err)
	}
}

func TestSumSplitsOwnFromOthers(t *testing.T) {
	inits, _ := Parse(sample)
	const mod = "github.com/hermes-go/hermes"
	own := Sum(inits, func(in Init) bool { return Own(mod, in.Package) })
	if own.Packages != 2 || own.Bytes != 53112 || own.Allocs != 325 {
		t.Fatalf("own = %+v, want 2 packages, 53112 bytes, 325 allocs", own)
	}
	all := Sum(inits, nil)
	if all.Packages != 5 || all.Bytes != 180496 || all.Allocs != 366 || all.Clock < 0.3629 || all.Clock > 0.3631 {
		t.Fatalf("all = %+v, want 5 packages, 0.363 ms, 180496 bytes, 366 allocs", all)
	}
	if Own(mod, "github.com/hermes-go/hermesx") || !Own(mod, mod) {
		t.Fatal("Own must match the module and the packages under it only")
	}
}
