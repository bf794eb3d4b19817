// Command acp measures what an editor waits for when it starts hermes as
// its agent: the wall time from starting "hermes acp" to the answer to
// initialize on stdout, over many runs, against a budget of 50 ms for the
// median.
//
//	go run ./bench/acp [-runs 41]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

// initialize is the first request an editor sends.
const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"

func main() {
	runs := flag.Int("runs", 41, "starts of hermes acp; the median is reported")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "acp:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	dir, err := os.MkdirTemp("", "hermes-bench-acp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hermes := filepath.Join(dir, "hermes")
	if err := ship.Build(hermes, "./cmd/hermes", ""); err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	// The first start creates state.db and warms the page cache.
	var times []float64
	for i := 0; i < runs+1; i++ {
		d, err := once(hermes, home)
		if err != nil {
			return err
		}
		if i > 0 {
			times = append(times, d)
		}
	}
	slices.Sort(times)
	fmt.Printf("hermes acp start to initialize answered: median %.2f ms, p90 %.2f ms, max %.2f ms over %d runs (budget: median 50 ms)\n",
		times[len(times)/2], times[len(times)*9/10], times[len(times)-1], runs)
	return nil
}

// once starts hermes acp, sends initialize and returns the milliseconds
// until its answer arrived; then it closes stdin, which ends hermes.
func once(hermes, home string) (float64, error) {
	cmd := exec.Command(hermes, "acp")
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=/usr/bin:/bin"}
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer stdin.Close()
	if _, err := io.WriteString(stdin, initialize); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	d := time.Since(start)
	if err != nil || !strings.Contains(line, `"protocolVersion"`) {
		return 0, fmt.Errorf("hermes acp answered %q: %v", line, err)
	}
	return float64(d.Microseconds()) / 1000, nil
}
