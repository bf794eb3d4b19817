// Package inittrace reads what the Go runtime prints about package
// initialization when a program runs with GODEBUG=inittrace=1: one line
// per package that has initialization work, with its time and heap
// allocations. hermes's tests use it to hold its own packages to zero
// allocations at start-up, and bench/startup to report the totals.
package inittrace

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Init is one package's initialization, as one trace line reports it:
//
//	init github.com/hermes-go/hermes/llm @8.9 ms, 0.12 ms clock, 53096 bytes, 324 allocs
type Init struct {
	// Package is the import path; "main" for the program's own.
	Package string
	// At is when the package's init started, in ms since the program
	// started.
	At float64
	// Clock is the wall time its init took, in ms.
	Clock float64
	// Bytes and Allocs are what its init allocated on the heap.
	Bytes, Allocs int64
}

// line is the runtime's format (runtime/proc.go, doInit1).
var line = lazy.Regexp{Expr: `^init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs$`}

// Parse returns the initializations reported in out, a program's standard
// error, in the order they ran; other lines are skipped. A line that
// starts like a trace line but does not read as one is an error, so that
// a change of format is noticed rather than read as an empty trace.
func Parse(out string) ([]Init, error) {
	var inits []Init
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		if !strings.HasPrefix(text, "init ") || !strings.Contains(text, " ms clock, ") {
			continue
		}
		m := line.Get().FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("inittrace: cannot read %q; want \"init PKG @T ms, C ms clock, N bytes, M allocs\"", text)
		}
		at, _ := strconv.ParseFloat(m[2], 64)
		clock, _ := strconv.ParseFloat(m[3], 64)
		bytes, _ := strconv.ParseInt(m[4], 10, 64)
		allocs, _ := strconv.ParseInt(m[5], 10, 64)
		inits = append(inits, Init{Package: m[1], At: at, Clock: clock, Bytes: bytes, Allocs: allocs})
	}
	return inits, sc.Err()
}

// Total is the sum of several packages' initializations.
type Total struct {
	Packages      int
	Clock         float64
	Bytes, Allocs int64
}

// Sum adds up the initializations that keep selects; a nil keep takes
// them all.
func Sum(inits []Init, keep func(Init) bool) Total {
	var t Total
	for _, in := range inits {
		if keep != nil && !keep(in) {
			continue
		}
		t.Packages++
		t.Clock += in.Clock
		t.Bytes += in.Bytes
		t.Allocs += in.Allocs
	}
	return t
}

// Own reports whether pkg belongs to module (its root or a package under
// it) or is the program's main package.
func Own(module, pkg string) bool {
	return pkg == "main" || pkg == module || strings.HasPrefix(pkg, module+"/")
}
