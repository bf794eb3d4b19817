// Command serve measures the memory of an idle `hermes serve`: resident
// set, and its anonymous part (what the process itself allocated, as
// opposed to pages of the binary mapped from the page cache), read from
// /proc/PID/status a few seconds after start, with 0 and 1,000 jobs, and
// after half a minute of jobs firing every 2 s (each runs in a job process
// of its own, so serve should not grow).
//
//	go run ./bench/serve [-reps 3]
//
// Linux only. The binary is built stripped, as it is shipped.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/bench/internal/figures"
	"github.com/hermes-go/hermes/bench/internal/proc"
	"github.com/hermes-go/hermes/bench/internal/ship"
)

func main() {
	reps := flag.Int("reps", 3, "measurements per case; the median is reported")
	settle := flag.Duration("settle", 4*time.Second, "how long serve runs before it is measured")
	flag.Parse()
	if err := run(*reps, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

// model points at a port nobody listens on: agent jobs fail at once,
// which is enough to exercise a run and its delivery.
const model = "model: {provider: openai, default: gpt-4o-mini, base_url: http://127.0.0.1:9/v1}\nagent: {api_max_retries: 0}\ndelivery: {retry_backoff: []}\n"

func run(reps int, settle time.Duration) error {
	bin, dir, err := ship.Hermes("hermes-bench-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cases := []struct {
		name, schedules string
		wait            time.Duration
	}{
		{"idle, 0 jobs", "", settle},
		{"idle, 1,000 jobs", thousandJobs(), settle},
		{"after 30 s of 2 jobs every 2 s", "schedules:\n  a: {cron: \"@every 2s\", prompt: hi, deliver: local}\n  b: {cron: \"@every 2s\", no_agent: true, script: echo hi, deliver: local}\n", 30 * time.Second},
	}
	fmt.Printf("%-34s %10s %10s %10s\n", "hermes serve", "VmRSS MB", "anon MB", "file MB")
	for _, c := range cases {
		var rss, anon, file []float64
		for range reps {
			m, err := measure(bin, dir, c.schedules, c.wait)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			rss, anon, file = append(rss, m.RSS), append(anon, m.Anon), append(file, m.File)
		}
		fmt.Printf("%-34s %10.1f %10.1f %10.1f\n", c.name, median(rss), median(anon), median(file))
	}
	return nil
}

func thousandJobs() string {
	var b strings.Builder
	b.WriteString("schedules:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  job%d: {cron: \"0 9 * * 1\", prompt: hi}\n", i)
	}
	return b.String()
}

// measure starts serve in a fresh home, waits, and reads its memory.
func measure(bin, dir, schedules string, wait time.Duration) (proc.Memory, error) {
	home, err := os.MkdirTemp(dir, "home-")
	if err != nil {
		return proc.Memory{}, err
	}
	defer os.RemoveAll(home)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(model+schedules), 0o600); err != nil {
		return proc.Memory{}, err
	}
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY=sk-bench\n"), 0o600); err != nil {
		return proc.Memory{}, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HERMES_HOME="+home)
	if err := cmd.Start(); err != nil {
		return proc.Memory{}, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(wait)
	return proc.ReadMemory(cmd.Process.Pid)
}

func median(xs []float64) float64 { return figures.Median(xs) }
