// Command startup measures what a person feels when they run hermes: the
// size of the stripped binary, and the wall time and peak memory of
// `hermes version` beside a hello-world Go program built the same way and
// run interleaved with it, so that drift on a shared machine hits both;
// then what package initialization costs before main, from the runtime's
// own trace, split into hermes's packages, the standard library's and
// third parties'.
//
//	go run ./bench/startup [-runs 41] [-traces 21]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

const hello = `package main

import "fmt"

func main() { fmt.Println("hello") }
`

func main() {
	runs := flag.Int("runs", 41, "runs of each binary (interleaved); the median is reported")
	traces := flag.Int("traces", 21, "runs of hermes version with GODEBUG=inittrace=1; the median is reported")
	keep := flag.String("out", "", "directory to keep the built binaries in (default: a temporary one)")
	flag.Parse()
	if err := run(*runs, *traces, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

func run(runs, traces int, dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "hermes-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	hermes := filepath.Join(dir, "hermes")
	if err := ship.Build(hermes, "./cmd/hermes", ""); err != nil {
		return err
	}
	floor := filepath.Join(dir, "floor")
	if err := ship.Build(floor, "./bench/startup/floor", ""); err != nil {
		return err
	}
	helloDir := filepath.Join(dir, "hello-src")
	if err := os.MkdirAll(helloDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(helloDir, "main.go"), []byte(hello), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(helloDir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		return err
	}
	helloBin := filepath.Join(dir, "hello")
	if err := ship.Build(helloBin, ".", helloDir); err != nil {
		return err
	}

	for _, bin := range []string{hermes, floor, helloBin} {
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		fmt.Printf("%-7s stripped binary: %6.2f MB (%d bytes)\n", filepath.Base(bin), float64(st.Size())/1e6, st.Size())
	}

	home, err := os.MkdirTemp("", "hermes-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	// Interleave the three so that drift on a shared machine hits all of
	// them alike; the first round only warms the page cache.
	cmds := [][]string{{hermes, "version"}, {floor}, {helloBin}}
	wall := make([][]float64, len(cmds))
	rss := make([][]float64, len(cmds))
	for i := 0; i < runs+1; i++ {
		for j, c := range cmds {
			d, r, err := measure(home, c[0], c[1:]...)
			if err != nil {
				return err
			}
			if i > 0 {
				wall[j], rss[j] = append(wall[j], d), append(rss[j], r)
			}
		}
	}
	names := []string{"hermes version", "deps floor", "hello world"}
	for j, n := range names {
		fmt.Printf("%-15s median %.2f ms, max RSS median %.1f MB (max %.1f MB) over %d runs\n",
			n+":", median(wall[j]), median(rss[j]), slices.Max(rss[j]), runs)
	}
	mh, mf, mw := median(wall[0]), median(wall[1]), median(wall[2])
	fmt.Printf("ratio hermes/hello wall time: %.2fx (budget 1.5x); deps floor/hello: %.2fx; hermes/floor: %.2fx\n", mh/mw, mf/mw, mh/mf)
	fmt.Printf("max RSS budget 15 MB\n")
	if traces > 0 {
		return reportInit(home, hermes, traces)
	}
	return nil
}

// measure runs bin once and returns its wall time in ms and max RSS in MB.
func measure(home, bin string, args ...string) (float64, float64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", bin, err)
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, fmt.Errorf("no rusage on this platform")
	}
	return float64(wall.Microseconds()) / 1000, float64(ru.Maxrss) / 1024, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
