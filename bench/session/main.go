// Command session measures a long turn of the real hermes binary: it
// scripts a model (llm/llmtest) that calls a tool N times with different
// arguments and then answers, runs `hermes chat -q` against it in a fresh
// home, and reports the wall time, hermes's CPU time per iteration and
// the process's peak RSS.
//
//	go run ./bench/session [-iterations 1000] [-tool terminal|todo]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func main() {
	n := flag.Int("iterations", 1000, "tool-calling iterations in the turn")
	toolName := flag.String("tool", "terminal", "the tool each iteration calls: terminal (runs bash) or todo (in-process)")
	flag.Parse()
	if err := run(*n, *toolName); err != nil {
		fmt.Fprintln(os.Stderr, "session:", err)
		os.Exit(1)
	}
}

func run(n int, toolName string) error {
	bin, dir, err := ship.Hermes("hermes-bench-session-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	srv := llmtest.NewServer()
	defer srv.Close()
	for i := range n {
		var args []byte
		switch toolName {
		case "terminal":
			args, _ = json.Marshal(map[string]string{"command": fmt.Sprintf("echo step %d", i)})
		case "todo":
			args, _ = json.Marshal(map[string]any{"merge": true, "todos": []map[string]string{{"id": fmt.Sprint(i % 50), "content": fmt.Sprintf("step %d", i)}}})
		default:
			return fmt.Errorf("-tool %q is not accepted; use terminal or todo", toolName)
		}
		srv.Enqueue(llmtest.Reply{Text: fmt.Sprintf("Step %d.", i),
			ToolCalls: []llm.ToolCall{{Name: toolName, Arguments: string(args)}}})
	}
	srv.Enqueue(llmtest.Reply{Text: "All steps done."})

	home := filepath.Join(dir, "home")
	cmd := exec.Command(bin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "bench", "--api-key", "sk-bench", "--max-turns", fmt.Sprint(n+1), "--json", "-q", "Run the steps.")
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("hermes chat: %v\n%s", err, out)
	}
	var res struct {
		Iterations int    `json:"iterations"`
		Stopped    string `json:"stopped_reason"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("hermes printed %s: %v", out, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	db, _ := os.Stat(filepath.Join(home, "state.db"))
	fmt.Printf("iterations          %d (stopped: %s)\n", res.Iterations, res.Stopped)
	fmt.Printf("wall time           %s (%.2f ms per iteration, each calling %s once)\n", wall.Round(time.Millisecond), float64(wall.Microseconds())/1000/float64(res.Iterations), toolName)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("hermes CPU          %s (%.2f ms per iteration, bash included; the rest is the scripted model)\n",
		cpu.Round(time.Millisecond), float64(cpu.Microseconds())/1000/float64(res.Iterations))
	fmt.Printf("peak RSS            %.1f MB\n", float64(ru.Maxrss)/1024)
	if db != nil {
		fmt.Printf("state.db            %.1f MB (without WAL)\n", float64(db.Size())/1e6)
	}
	return nil
}
