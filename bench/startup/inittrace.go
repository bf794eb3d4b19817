package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"github.com/hermes-go/hermes/internal/inittrace"
)

// module is hermes's module path: its packages (and main) are hermes's own.
const module = "github.com/hermes-go/hermes"

// origins split a trace by whose packages ran: hermes's own, the
// standard library's, and third parties'. Go runs the initializer of
// every linked package before main, so these are what every command,
// `hermes version` included, pays before it starts.
var origins = []struct {
	name string
	of   func(pkg string) bool
}{
	{"all", func(string) bool { return true }},
	{"hermes", func(pkg string) bool { return inittrace.Own(module, pkg) }},
	{"standard library", func(pkg string) bool { return !inittrace.Own(module, pkg) && standard(pkg) }},
	{"third-party", func(pkg string) bool { return !inittrace.Own(module, pkg) && !standard(pkg) }},
}

// standard reports a standard-library package: its first path element
// has no dot (vendor/golang.org/x/... is the standard library's copy).
func standard(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// reportInit runs `hermes version` with GODEBUG=inittrace=1 runs times and
// prints, for each origin, the median over the runs of the summed init
// wall time, bytes and allocations; and when the last init ended, which
// also counts the pages of code and data loaded between them.
func reportInit(home, hermes string, runs int) error {
	totals := make([][]inittrace.Total, len(origins))
	var ends []float64
	for range runs {
		cmd := exec.Command(hermes, "version")
		cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin", "GODEBUG=inittrace=1"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s version: %w: %s", hermes, err, stderr.String())
		}
		inits, err := inittrace.Parse(stderr.String())
		if err != nil {
			return err
		}
		if len(inits) == 0 {
			return fmt.Errorf("%s version printed no init trace under GODEBUG=inittrace=1", hermes)
		}
		for i, o := range origins {
			totals[i] = append(totals[i], inittrace.Sum(inits, func(in inittrace.Init) bool { return o.of(in.Package) }))
		}
		last := inits[len(inits)-1]
		ends = append(ends, last.At+last.Clock)
	}
	fmt.Printf("hermes version package init (GODEBUG=inittrace=1), median of %d runs:\n", runs)
	for i, o := range origins {
		var clock, kb, allocs, pkgs []float64
		for _, t := range totals[i] {
			clock = append(clock, t.Clock)
			kb = append(kb, float64(t.Bytes)/1024)
			allocs = append(allocs, float64(t.Allocs))
			pkgs = append(pkgs, float64(t.Packages))
		}
		fmt.Printf("  %-17s %4.0f packages %6.2f ms %8.1f KB %7.0f allocs\n", o.name+":", median(pkgs), median(clock), median(kb), median(allocs))
	}
	fmt.Printf("  the last init ends %.2f ms after the program started (median)\n", median(ends))
	return nil
}
