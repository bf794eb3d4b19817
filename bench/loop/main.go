// Command loop measures what one tool round of a long turn costs hermes:
// it runs the real binary (`hermes chat -q`) against a zero-latency
// scripted model (llm/llmtest) that calls a tool every round, for each
// combination of round count, tool and filesystem, several times, and
// prints the medians.
//
// hermes's own CPU is read from the scheduler (/proc/PID/task/*/schedstat,
// in nanoseconds) when the model receives the first and the last request,
// so it covers exactly the rounds, not start-up, and not the processes a
// tool starts (bash, for terminal). The total CPU from the exit status
// includes start-up and every child; wall time is from start to exit.
//
//	go run ./bench/loop [-rounds 30,150] [-tools read_file,terminal] [-fs disk=DIR,tmpfs=/dev/shm] [-reps 5] [-env KEY=VALUE]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

func main() {
	rounds := flag.String("rounds", "30,150", "comma-separated round counts")
	toolNames := flag.String("tools", "read_file,terminal", "comma-separated tools the model calls each round: read_file (in-process), terminal (runs bash), todo")
	fs := flag.String("fs", "", "comma-separated NAME=DIR places for hermes's home (default: disk=$TMPDIR, tmpfs=/dev/shm when it exists)")
	reps := flag.Int("reps", 5, "runs of each combination; the median is reported")
	bin := flag.String("bin", "", "a hermes binary to measure (default: build ./cmd/hermes)")
	var env ship.Env
	flag.Var(&env, "env", "`KEY=VALUE` added to hermes's environment, for example HERMES_TERMINAL_PERSISTENT_SHELL=false (repeatable)")
	flag.Parse()
	if err := run(*rounds, *toolNames, *fs, *reps, *bin, env); err != nil {
		fmt.Fprintln(os.Stderr, "loop:", err)
		os.Exit(1)
	}
}

func run(roundList, toolList, fsList string, reps int, bin string, env []string) error {
	ns, err := ints(roundList)
	if err != nil {
		return err
	}
	places, err := placesOf(fsList)
	if err != nil {
		return err
	}
	tools := strings.Split(toolList, ",")
	for _, t := range tools {
		if _, err := toolArgs(t, 0); err != nil {
			return err
		}
	}
	if bin == "" {
		b, dir, err := ship.Hermes("hermes-bench-loop-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = b
	}

	fmt.Printf("%-9s %-6s %6s  %10s %10s %10s %10s %12s\n", "tool", "fs", "rounds",
		"own ms/rd", "total ms/rd", "wall ms/rd", "wall s", "peak RSS MB")
	for _, t := range tools {
		for _, p := range places {
			for _, n := range ns {
				var runs []result
				for range reps {
					r, err := once(bin, p.dir, t, n, env)
					if err != nil {
						return fmt.Errorf("%s on %s, %d rounds: %w", t, p.name, n, err)
					}
					runs = append(runs, r)
				}
				m := medianOf(runs)
				per := func(ns int64) float64 { return float64(ns) / 1e6 / float64(n) }
				fmt.Printf("%-9s %-6s %6d  %10.2f %10.2f %10.2f %10.2f %12.1f\n", t, p.name, n,
					per(m.ownNS), per(m.totalNS), per(m.wallNS), float64(m.wallNS)/1e9, float64(m.rssKB)/1024)
			}
		}
	}
	fmt.Println("own: hermes's CPU from the first to the last model request, divided by rounds (no start-up, no child processes)")
	fmt.Println("total: hermes's and its children's CPU for the whole run; wall: start to exit; medians of", reps, "runs")
	return nil
}

// medianOf returns, field by field, the median of runs.
func medianOf(runs []result) result {
	pick := func(f func(result) int64) int64 {
		v := make([]int64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		ownNS:   pick(func(r result) int64 { return r.ownNS }),
		totalNS: pick(func(r result) int64 { return r.totalNS }),
		wallNS:  pick(func(r result) int64 { return r.wallNS }),
		rssKB:   pick(func(r result) int64 { return r.rssKB }),
	}
}

type place struct{ name, dir string }

func placesOf(list string) ([]place, error) {
	if list == "" {
		out := []place{{"disk", os.TempDir()}}
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			out = append(out, place{"tmpfs", "/dev/shm"})
		}
		return out, nil
	}
	var out []place
	for _, f := range strings.Split(list, ",") {
		name, dir, ok := strings.Cut(f, "=")
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("-fs %q: each entry is NAME=DIR, like tmpfs=/dev/shm", f)
		}
		out = append(out, place{name, dir})
	}
	return out, nil
}

func ints(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			return nil, fmt.Errorf("-rounds %q: want positive whole numbers separated by commas", list)
		}
		out = append(out, n)
	}
	return out, nil
}
