// Command batch measures hermes batch run: prompts per second with 1, 4
// and 16 workers against llm/llmtest answering every call after
// -latency (200 ms), and the peak RSS of each run. The runner should
// scale until the model is the limit: with W workers and a model that
// takes L per call, the ceiling is W/L prompts per second, and the
// efficiency column is the throughput as a share of it.
//
//	go run ./bench/batch [-prompts 96] [-workers 1,4,16] [-latency 200ms] [-reps 1]
//
// It runs the real, stripped binary with a fresh $HERMES_HOME per run;
// each prompt is one turn of one model call that answers in text. Wall
// time runs from start to exit, so it includes start-up (opening
// state.db, building the engine) and writing statistics.json; the peak
// RSS is the process's maximum resident set from its exit status
// (rusage), over the whole run. Linux only.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/bench/internal/figures"
	"github.com/hermes-go/hermes/bench/internal/ship"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

func main() {
	prompts := flag.Int("prompts", 96, "prompts in the batch")
	workerList := flag.String("workers", "1,4,16", "comma-separated worker counts")
	latency := flag.Duration("latency", 200*time.Millisecond, "the model's time per call")
	reps := flag.Int("reps", 1, "runs of each worker count; the median is reported")
	bin := flag.String("bin", "", "a hermes binary to measure (default: build ./cmd/hermes stripped)")
	var env ship.Env
	flag.Var(&env, "env", "`KEY=VALUE` added to hermes's environment (repeatable)")
	flag.Parse()
	if err := run(*prompts, *workerList, *latency, *reps, *bin, env); err != nil {
		fmt.Fprintln(os.Stderr, "batch:", err)
		os.Exit(1)
	}
}

func run(prompts int, workerList string, latency time.Duration, reps int, bin string, env []string) error {
	if prompts < 1 || reps < 1 || latency <= 0 {
		return fmt.Errorf("-prompts %d, -reps %d, -latency %s: each must be more than 0", prompts, reps, latency)
	}
	var workers []int
	for _, s := range strings.Split(workerList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-workers %q: want comma-separated counts of 1 or more", workerList)
		}
		workers = append(workers, n)
	}
	if bin == "" {
		b, dir, err := ship.Hermes("hermes-bench-batch-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = b
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "done", Delay: latency} })

	fmt.Printf("hermes batch run: %d prompts, one model call each, model latency %s, median of %d\n\n", prompts, latency, reps)
	fmt.Printf("%7s %10s %12s %12s %11s %13s\n", "workers", "wall s", "prompts/s", "ceiling/s", "efficiency", "peak RSS MB")
	for _, w := range workers {
		var walls, rss []float64
		for range reps {
			wall, peak, err := once(bin, srv.URL(), prompts, w, env)
			if err != nil {
				return fmt.Errorf("%d workers: %w", w, err)
			}
			walls, rss = append(walls, wall.Seconds()), append(rss, peak)
		}
		wall := figures.Median(walls)
		rate := float64(prompts) / wall
		ceiling := float64(w) / latency.Seconds()
		fmt.Printf("%7d %10.2f %12.1f %12.1f %10.0f%% %13.1f\n", w, wall, rate, ceiling, 100*rate/ceiling, figures.Median(rss))
	}
	return nil
}

// once runs one batch in a fresh home and returns its wall time and
// peak RSS in MB.
func once(bin, modelURL string, prompts, workers int, env []string) (time.Duration, float64, error) {
	home, err := os.MkdirTemp("", "hermes-bench-batch-home-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(home)
	var in bytes.Buffer
	for i := range prompts {
		fmt.Fprintf(&in, "{\"prompt\": \"prompt %d\"}\n", i)
	}
	file := filepath.Join(home, "prompts.jsonl")
	if err := os.WriteFile(file, in.Bytes(), 0o600); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(bin, "batch", "run", file, "--run", "bench", "--workers", strconv.Itoa(workers),
		"--api-mode", "chat_completions", "--base-url", modelURL+"/v1", "--model", "bench-model", "--api-key", "sk-bench-123456")
	cmd.Env = append([]string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_MEMORY_LONG_TERM=false"}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%w\n%s", err, stderr.String())
	}
	wall := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return 0, 0, fmt.Errorf("no resource usage in the exit status")
	}
	return wall, float64(ru.Maxrss) / 1024, nil
}
