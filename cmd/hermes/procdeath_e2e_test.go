//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
)

// The processes hermes starts for tools die with it, however it dies.
// Each test has a tool start `sleep 300` in the background of a shell,
// writing the sleep's pid to a named pipe (so the test knows it runs
// without waiting on a clock), kills hermes with SIGKILL, which leaves it
// no chance to clean up, and checks the sleep is gone.

// sleeper is the command that starts the sleep and reports its pid.
func sleeper(fifo string) string { return "sleep 300 & echo $! > " + fifo + "; wait" }

// startHermes starts hermes with args in h, its output gathered in the
// returned buffer; the test kills it at the end whatever happens.
func startHermes(t *testing.T, h *home, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Env, cmd.Dir = h.env, h.dir
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A process left running keeps hermes's output open; Wait must not
	// wait for it.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("hermes %s said:\n%s", strings.Join(args, " "), out.String())
		}
	})
	return cmd, &out
}

// killAndCheck kills hermes with SIGKILL and fails the test unless every
// process in pids ends.
func killAndCheck(t *testing.T, hermes *exec.Cmd, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if !procgrouptest.Alive(pid) {
			t.Fatalf("process %d is not running before hermes is killed", pid)
		}
	}
	if err := hermes.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = hermes.Wait()
	procgrouptest.WaitGone(t, pids, 10*time.Second)
}

// chatArgs runs one turn against srv, approving every command so the
// test is about processes, not approvals.
func chatArgs(srv *llmtest.Server, prompt string) []string {
	return []string{"chat", "--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1", "--model", "test-model",
		"--api-key", "sk-test-123456", "--yolo", "--json", "-q", prompt}
}

// A background process, the way the issue has it: the model starts it
// with terminal background, the process tool reports its pid, and hermes
// is killed while the turn goes on.
func TestBackgroundProcessDiesWithHermes(t *testing.T) {
	h := newHome(t)
	fifo := procgrouptest.NewFifo(t)
	reported := make(chan int, 1)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == llm.RoleUser {
			args, _ := json.Marshal(map[string]any{"command": sleeper(fifo), "background": true})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}
		}
		var env struct {
			Data struct {
				PID int `json:"pid"`
			} `json:"data"`
		}
		_ = json.Unmarshal([]byte(last.Text()), &env)
		reported <- env.Data.PID
		return llmtest.Reply{StallAfter: -1} // the turn goes on until hermes dies
	})
	hermes, _ := startHermes(t, h, chatArgs(srv, "start a long job")...)
	sleep := procgrouptest.ReadPid(t, fifo, 30*time.Second)
	var pid int
	select {
	case pid = <-reported:
	case <-time.After(30 * time.Second):
		t.Fatal("the model never got the process's pid")
	}
	if g := procgrouptest.Group(t, sleep); g != pid {
		t.Fatalf("the sleep is in process group %d, not in the reported process's %d", g, pid)
	}
	killAndCheck(t, hermes, pid, sleep)
}

// A terminal command still running in the foreground.
func TestTerminalCommandDiesWithHermes(t *testing.T) {
	h := newHome(t)
	fifo := procgrouptest.NewFifo(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(sleeper(fifo))}})
	hermes, _ := startHermes(t, h, chatArgs(srv, "run a long job")...)
	killAndCheck(t, hermes, procgrouptest.ReadPid(t, fifo, 30*time.Second))
}

// A session's persistent shell, idle between two commands of a turn,
// and what a command left running in it.
func TestPersistentShellDiesWithHermes(t *testing.T) {
	h := newHome(t)
	shellFifo, leftFifo := procgrouptest.NewFifo(t), procgrouptest.NewFifo(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo $BASHPID > " + shellFifo + "; sleep 300 & echo $! > " + leftFifo)}})
	srv.Enqueue(llmtest.Reply{StallAfter: -1}) // the turn goes on until hermes dies
	hermes, _ := startHermes(t, h, chatArgs(srv, "set up and wait")...)
	shell := procgrouptest.ReadPid(t, shellFifo, 30*time.Second)
	left := procgrouptest.ReadPid(t, leftFifo, 30*time.Second)
	killAndCheck(t, hermes, shell, left)
}

// A declared command tool still running.
func TestDeclaredCommandDiesWithHermes(t *testing.T) {
	h := newHome(t)
	fifo := procgrouptest.NewFifo(t)
	if err := os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(sleeper(fifo))
	h.write("tools/long.yaml", `tools:
  - name: long_job
    description: Runs the long job.
    command: {argv: [sh, -c, `+string(spec)+`]}
`)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "long_job", Arguments: `{}`}}})
	hermes, _ := startHermes(t, h, chatArgs(srv, "run the long job")...)
	killAndCheck(t, hermes, procgrouptest.ReadPid(t, fifo, 30*time.Second))
}

// A job's script, run by hand.
func TestJobScriptDiesWithHermes(t *testing.T) {
	h := newHome(t)
	fifo := procgrouptest.NewFifo(t)
	h.write("config.yaml", "schedules:\n  long: {cron: \"@daily\", no_agent: true, deliver: local, script: \""+sleeper(fifo)+"\"}\n")
	hermes, _ := startHermes(t, h, "cron", "run", "long")
	killAndCheck(t, hermes, procgrouptest.ReadPid(t, fifo, 30*time.Second))
}

// A job's script in the job process of hermes serve: when serve dies,
// the job process stops its run, and the script dies with it.
func TestJobProcessDiesWithServe(t *testing.T) {
	h := newHome(t)
	fifo := procgrouptest.NewFifo(t)
	h.write("config.yaml", "schedules:\n  long: {cron: \"@every 1s\", no_agent: true, deliver: local, script: \""+sleeper(fifo)+"\"}\n")
	serve, _ := startHermes(t, h, "serve")
	sleep := procgrouptest.ReadPid(t, fifo, 30*time.Second)
	job := ancestor(t, sleep, 3) // sleep ← the script's shell ← its guard ← the job process
	killAndCheck(t, serve, job, sleep)
}

// ancestor returns the parent of pid, n generations up.
func ancestor(t *testing.T, pid, n int) int {
	t.Helper()
	for ; n > 0; n-- {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if pid, err = strconv.Atoi(f[1]); err != nil {
			t.Fatal(err)
		}
	}
	return pid
}
