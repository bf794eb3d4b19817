package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// result is one run's figures.
type result struct {
	ownNS, totalNS, wallNS, rssKB int64
}

// note is the file read_file reads every round: about a kilobyte, like a
// small source file, so the history grows as in a real session.
var note = strings.Repeat("The quick brown fox jumps over the lazy dog, twice.\n", 20)

// toolArgs returns the arguments of round i's call of tool.
func toolArgs(tool string, i int) (string, error) {
	var v any
	switch tool {
	case "read_file":
		v = map[string]any{"path": "note.txt", "offset": 1 + i%5}
	case "terminal":
		v = map[string]string{"command": fmt.Sprintf("echo step %d", i)}
	case "todo":
		v = map[string]any{"merge": true, "todos": []map[string]string{{"id": fmt.Sprint(i % 50), "content": fmt.Sprintf("step %d", i)}}}
	default:
		return "", fmt.Errorf("-tools: %q is not accepted; use read_file, terminal or todo", tool)
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// once runs one n-round turn of tool with hermes's home under base and
// env added to its environment.
func once(bin, base, tool string, n int, env []string) (result, error) {
	dir, err := os.MkdirTemp(base, "hermes-bench-loop-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte(note), 0o600); err != nil {
		return result{}, err
	}

	var (
		mu          sync.Mutex
		pid         int
		first, last int64 // hermes's CPU ns at the first and the last request
		hwmKB       int64 // hermes's peak RSS at the last request
		errs        []error
	)
	sample := func() int64 {
		mu.Lock()
		p := pid
		mu.Unlock()
		ns, err := cpuNS(p)
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		return ns
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.Index == 0:
			first = sample()
		case r.Index == n:
			last = sample()
			mu.Lock()
			hwmKB, err = peakRSS(pid)
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
			return llmtest.Reply{Text: "All steps done."}
		case r.Index > n:
			return llmtest.Reply{Text: "Done already."}
		}
		args, _ := toolArgs(tool, r.Index)
		return llmtest.Reply{Text: fmt.Sprintf("Step %d.", r.Index),
			ToolCalls: []llm.ToolCall{{Name: tool, Arguments: args}}}
	})

	home := filepath.Join(dir, "home")
	cmd := exec.Command(bin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "bench", "--api-key", "sk-bench", "--max-turns", fmt.Sprint(n+1), "--json", "-q", "Run the steps.")
	cmd.Env = append([]string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}, env...)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	mu.Lock()
	pid = cmd.Process.Pid
	mu.Unlock()
	err = cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("hermes chat: %v\n%s", err, out.String())
	}
	var res struct {
		Iterations int    `json:"iterations"`
		Stopped    string `json:"stopped_reason"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		return result{}, fmt.Errorf("hermes printed %s: %v", out.String(), err)
	}
	if res.Stopped != "done" || res.Iterations < n {
		return result{}, fmt.Errorf("the turn stopped %q after %d rounds, want done after %d", res.Stopped, res.Iterations, n)
	}
	if len(errs) > 0 {
		return result{}, errs[0]
	}
	if c := srv.Connections(); c > 1 {
		fmt.Fprintf(os.Stderr, "loop: hermes opened %d connections for %d model calls\n", c, n+1)
	}
	total := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return result{ownNS: last - first, totalNS: total.Nanoseconds(), wallNS: wall.Nanoseconds(), rssKB: hwmKB}, nil
}

// peakRSS returns the peak resident memory of process pid in KiB, its
// VmHWM. (The exit status's ru_maxrss is no good here: Linux counts in it
// the memory of the parent that started the process, this program, whose
// scripted model keeps every request it received.)
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM line", pid)
}

// cpuNS returns the CPU time every thread of process pid has run, in
// nanoseconds, from /proc/PID/task/*/schedstat (its first field).
func cpuNS(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for process %d (needs Linux with schedstats): %v", pid, err)
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended between the glob and the read
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a number of nanoseconds", t, f[0])
		}
		sum += v
	}
	return sum, nil
}
