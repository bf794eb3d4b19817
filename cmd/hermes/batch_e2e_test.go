package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// startHeld starts hermes with args and returns once workers of its
// turns wait on the model.
func startHeld(t *testing.T, h *home, args []string, held <-chan struct{}, workers int) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Env, cmd.Dir = h.env, h.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range workers {
		select {
		case <-held:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("the workers never all waited on the model; stderr:\n%s", stderr.String())
		}
	}
	return cmd, &stderr
}

// batchEntry is a line of trajectories.jsonl as the test reads it.
type batchEntry struct {
	PromptIndex   int `json:"prompt_index"`
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
	Metadata struct {
		Run       string `json:"run_name"`
		SessionID string `json:"session_id"`
		Timestamp string `json:"timestamp"`
		Model     string `json:"model"`
	} `json:"metadata"`
	Completed       bool                      `json:"completed"`
	Partial         bool                      `json:"partial"`
	UnknownTools    []string                  `json:"unknown_tools"`
	APICalls        int                       `json:"api_calls"`
	ToolsetsUsed    []string                  `json:"toolsets_used"`
	ToolStats       map[string]map[string]int `json:"tool_stats"`
	ToolErrorCounts map[string]int            `json:"tool_error_counts"`
}

// batchModel answers prompt "task N": every tenth calls the terminal,
// the one after calls a tool that does not exist, the rest answer at
// once. After `free` calls it holds every call until release is closed,
// so the run can be killed with turns in flight.
func batchModel(t *testing.T, free int) (srv *llmtest.Server, held <-chan struct{}, release func()) {
	srv = llmtest.New(t)
	gate, heldCh := make(chan struct{}), make(chan struct{}, 1024)
	var mu sync.Mutex
	calls := 0
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n > free {
			heldCh <- struct{}{}
			<-gate
		}
		var task int
		fmt.Sscanf(r.Messages[1].Text(), "task %d", &task)
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleTool {
			return llmtest.Reply{Text: fmt.Sprintf("finished task %d", task)}
		}
		switch task % 10 {
		case 0:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(fmt.Sprintf("echo out-%d", task))}}
		case 1:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "no_such_tool", Arguments: `{}`}}}
		}
		return llmtest.Reply{Text: fmt.Sprintf("answer %d", task)}
	})
	var once sync.Once
	return srv, heldCh, func() { once.Do(func() { close(gate) }) }
}

// The test: 200 prompts with 8 workers, killed with SIGKILL
// half-way and resumed, give every prompt exactly once, and the entries
// are in Hermes's trajectory format field by field.
func TestBatchKilledAndResumedRunsEveryPromptOnce(t *testing.T) {
	h := newHome(t)
	var in bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&in, "{\"prompt\": \"task %d\"}\n", i)
	}
	prompts := filepath.Join(h.dir, "prompts.jsonl")
	if err := os.WriteFile(prompts, in.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// 110 prompts' worth of calls pass (the tenth of them take two), then
	// the model holds every call.
	srv, held, release := batchModel(t, 120)
	defer release()
	args := []string{"batch", "run", prompts, "--run", "eval1", "--workers", "8", "--toolsets", "terminal",
		"--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1", "--model", "test-model", "--api-key", "sk-test-123456"}
	cmd, _ := startHeld(t, h, args, held, 8)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	release()
	out := filepath.Join(h.dir, "batch", "eval1", "trajectories.jsonl")
	first := readEntries(t, out)
	if len(first) == 0 || len(first) >= 200 {
		t.Fatalf("the killed run wrote %d entries, want some and not all", len(first))
	}

	if r := h.hermes(args...); r.code == 0 || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("running again without --resume: exit %d, want an error naming --resume\n%s", r.code, r.stderr)
	}
	r := h.hermes(append(args, "--resume")...)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("200 of 200 prompts done (%d this run, %d skipped", 200-len(first), len(first))) {
		t.Errorf("resume summary:\n%s", r.stderr)
	}
	entries := readEntries(t, out)
	seen := map[int]int{}
	for _, e := range entries {
		seen[e.PromptIndex]++
	}
	for i := range 200 {
		if seen[i] != 1 {
			t.Errorf("prompt %d is in the output %d times, want once", i, seen[i])
		}
	}
	if len(entries) != 200 {
		t.Errorf("%d entries, want 200", len(entries))
	}
	sessions := map[string]bool{}
	for _, e := range entries {
		checkBatchEntry(t, e)
		if sessions[e.Metadata.SessionID] {
			t.Errorf("prompt %d shares session %s", e.PromptIndex, e.Metadata.SessionID)
		}
		sessions[e.Metadata.SessionID] = true
	}
	var stats struct {
		Total int                       `json:"total_prompts"`
		Done  int                       `json:"completed_prompts"`
		Tools map[string]map[string]any `json:"tool_statistics"`
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "batch", "eval1", "statistics.json"))
	if err != nil || json.Unmarshal(b, &stats) != nil || stats.Total != 200 || stats.Done != 200 || stats.Tools["terminal"] == nil {
		t.Errorf("statistics.json: %v\n%s", err, b)
	}
}

// checkBatchEntry checks one entry field by field against what the model
// was scripted to do for its prompt.
func checkBatchEntry(t *testing.T, e batchEntry) {
	t.Helper()
	i := e.PromptIndex
	from := make([]string, len(e.Conversations))
	for j, c := range e.Conversations {
		from[j] = c.From
	}
	if e.Metadata.Run != "eval1" || e.Metadata.Model != "test-model" || e.Metadata.SessionID == "" || e.Metadata.Timestamp == "" {
		t.Errorf("prompt %d: metadata %+v", i, e.Metadata)
	}
	if len(e.ToolsetsUsed) != 1 || e.ToolsetsUsed[0] != "terminal" {
		t.Errorf("prompt %d: toolsets_used %v, want [terminal]", i, e.ToolsetsUsed)
	}
	if len(from) < 3 || from[0] != "system" || !strings.Contains(e.Conversations[0].Value, "<tools>") ||
		!strings.Contains(e.Conversations[0].Value, `"name":"terminal"`) || e.Conversations[1].Value != fmt.Sprintf("task %d", i) {
		t.Fatalf("prompt %d: conversations start %v %+v", i, from, e.Conversations[:min(2, len(e.Conversations))])
	}
	switch i % 10 {
	case 0:
		want := fmt.Sprintf(`{"name":"terminal","arguments":{"command":"echo out-%d"}}`, i)
		if strings.Join(from, ",") != "system,human,gpt,tool,gpt" ||
			e.Conversations[2].Value != "<tool_call>\n"+want+"\n</tool_call>" ||
			!strings.HasPrefix(e.Conversations[3].Value, "<tool_response>\n{") || !strings.HasSuffix(e.Conversations[3].Value, "}\n</tool_response>") ||
			!strings.Contains(e.Conversations[3].Value, `"name":"terminal"`) || !strings.Contains(e.Conversations[3].Value, fmt.Sprintf("out-%d", i)) ||
			e.Conversations[4].Value != fmt.Sprintf("finished task %d", i) {
			t.Errorf("prompt %d: conversations %+v", i, e.Conversations)
		}
		if e.APICalls != 2 || !e.Completed || e.Partial || e.ToolStats["terminal"]["count"] != 1 || e.ToolStats["terminal"]["success"] != 1 ||
			e.ToolStats["terminal"]["failure"] != 0 || e.ToolErrorCounts["terminal"] != 0 || len(e.UnknownTools) != 0 {
			t.Errorf("prompt %d: api_calls %d completed %v partial %v tool_stats %v errors %v", i, e.APICalls, e.Completed, e.Partial, e.ToolStats, e.ToolErrorCounts)
		}
	case 1:
		if strings.Join(from, ",") != "system,human,gpt,tool,gpt" || !strings.Contains(e.Conversations[2].Value, `"name":"no_such_tool"`) {
			t.Errorf("prompt %d: conversations %+v", i, e.Conversations)
		}
		if !e.Partial || len(e.UnknownTools) != 1 || e.UnknownTools[0] != "no_such_tool" || e.ToolErrorCounts["no_such_tool"] != 1 ||
			e.ToolStats["no_such_tool"]["failure"] != 1 {
			t.Errorf("prompt %d: a call of an unknown tool is not marked: partial %v unknown %v stats %v", i, e.Partial, e.UnknownTools, e.ToolStats)
		}
	default:
		if strings.Join(from, ",") != "system,human,gpt" || e.Conversations[2].Value != fmt.Sprintf("answer %d", i) ||
			e.APICalls != 1 || !e.Completed || e.Partial || len(e.ToolStats) != 0 {
			t.Errorf("prompt %d: %+v", i, e)
		}
	}
}

func readEntries(t *testing.T, path string) []batchEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []batchEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e batchEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: a line is not an entry: %v\n%s", path, err, sc.Bytes())
		}
		out = append(out, e)
	}
	return out
}

// A bad line fails the run before any model call, naming the line, the
// field and what it accepts.
func TestBatchBadLineNamesLineAndField(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	for _, c := range []struct{ body, want string }{
		{"{\"prompt\": \"a\"}\n{\"prompt\": 5}\n", "line 2: prompt: 5 is not a string"},
		{"{\"prompt\": \"a\"}\n\n{\"promt\": \"b\"}\n", `line 3: unknown field "promt"`},
		{"{\"prompt\": \"a\", \"toolsets\": \"web\"}\n", "line 1: toolsets: \"web\" is not a list"},
		{"{\"prompt\": \"a\", \"cwd\": \"/nonexistent/x\"}\n", `line 1: cwd: "/nonexistent/x" is not a directory`},
		{"not json\n", "line 1: not a JSON object"},
		{"{\"prompt\": \"a\", \"toolsets\": [\"nope\"]}\n", "line 1: toolsets: unknown toolset \"nope\""},
	} {
		p := filepath.Join(h.dir, "p.jsonl")
		os.WriteFile(p, []byte(c.body), 0o600)
		r := h.hermes("batch", "run", p, "--run", "x", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
			"--model", "test-model", "--api-key", "sk-test-123456")
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %s; want %q", c.body, r.code, r.stderr, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls for bad input, want none", n)
	}
}

// Nobody watches a batch: a dangerous command is decided by
// approvals.cron_mode, denied by default and run when it is allow. The
// line's cwd is where its tools start, and its toolsets are offered.
func TestBatchDangerousCommandsFollowCronModeAndLineCwd(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		removed bool
	}{{"", false}, {"allow", true}} {
		t.Run("cron_mode="+tc.mode, func(t *testing.T) {
			h := newHome(t)
			srv := llmtest.New(t)
			work := t.TempDir()
			target := filepath.Join(t.TempDir(), "build")
			if err := os.MkdirAll(filepath.Join(target, "obj"), 0o755); err != nil {
				t.Fatal(err)
			}
			approvals := ""
			if tc.mode != "" {
				approvals = "approvals: {cron_mode: " + tc.mode + "}\n"
			}
			h.write("config.yaml", modelConfig(srv)+approvals)
			p := filepath.Join(h.dir, "p.jsonl")
			os.WriteFile(p, []byte(`{"prompt": "clean the build", "cwd": "`+work+`", "toolsets": ["terminal"]}`+"\n"), 0o600)
			srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("pwd")}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + target)}}, llmtest.Reply{Text: "done"})
			if r := h.hermes("batch", "run", p, "--run", "clean", "--workers", "1", "--toolsets", "file"); r.code != 0 {
				t.Fatalf("batch run: exit %d\n%s", r.code, r.stderr)
			}
			_, err := os.Stat(target)
			if removed := os.IsNotExist(err); removed != tc.removed {
				t.Errorf("removed = %v, want %v; the tool said %s", removed, tc.removed, lastToolResult(t, srv, 2))
			}
			e := readEntries(t, filepath.Join(h.dir, "batch", "clean", "trajectories.jsonl"))[0]
			if !strings.Contains(e.Conversations[3].Value, work) {
				t.Errorf("pwd in the line's cwd said %s, want %s", e.Conversations[3].Value, work)
			}
			if len(e.ToolsetsUsed) != 1 || e.ToolsetsUsed[0] != "terminal" {
				t.Errorf("toolsets_used %v, want the line's [terminal]", e.ToolsetsUsed)
			}
			if !tc.removed && (!strings.Contains(e.Conversations[5].Value, "denied") || e.ToolStats["terminal"]["failure"] != 1) {
				t.Errorf("the denial is not in the trajectory: %+v %v", e.Conversations[5], e.ToolStats)
			}
		})
	}
}

// Ctrl-C stops a batch cleanly: no new prompt starts, the turns running
// are left for the resume, what finished is kept with its checkpoint and
// statistics, and the resume does the rest.
func TestBatchInterruptKeepsWhatFinished(t *testing.T) {
	h := newHome(t)
	var in bytes.Buffer
	for i := range 60 {
		fmt.Fprintf(&in, "{\"prompt\": \"task %d\"}\n", i)
	}
	prompts := filepath.Join(h.dir, "prompts.jsonl")
	os.WriteFile(prompts, in.Bytes(), 0o600)
	srv, held, release := batchModel(t, 20)
	defer release()
	args := []string{"batch", "run", prompts, "--run", "int", "--workers", "4",
		"--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1", "--model", "test-model", "--api-key", "sk-test-123456"}
	cmd, stderr := startHeld(t, h, args, held, 4)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if err == nil || !strings.Contains(stderr.String(), "stopped; what finished is kept") {
		t.Fatalf("interrupted batch: %v\n%s", err, stderr.String())
	}
	dir := filepath.Join(h.dir, "batch", "int")
	done := readEntries(t, filepath.Join(dir, "trajectories.jsonl"))
	var cp struct {
		Done []int `json:"completed_prompts"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "checkpoint.json"))
	if json.Unmarshal(b, &cp) != nil || len(cp.Done) != len(done) || len(done) == 0 || len(done) >= 60 {
		t.Fatalf("%d entries, checkpoint %s", len(done), b)
	}
	if _, err := os.Stat(filepath.Join(dir, "statistics.json")); err != nil {
		t.Error(err)
	}
	release()
	if r := h.hermes(append(args, "--resume")...); r.code != 0 || len(readEntries(t, filepath.Join(dir, "trajectories.jsonl"))) != 60 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
}

// A batch neither recalls the user's long-term facts into its prompts
// nor extracts facts from them: its samples are the prompts as written.
func TestBatchLeavesLongTermMemoryOut(t *testing.T) {
	h := newHome(t)
	h.env = slices.DeleteFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, "HERMES_MEMORY_LONG_TERM=") })
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), "worth remembering") {
			return llmtest.Reply{Text: "```json\n" + `[{"kind":"decision","subject":"production deploys","content":"The user deploys to production only on Fridays after 3pm.","confidence":0.95}]` + "\n```"}
		}
		return llmtest.Reply{Text: "Noted."}
	})
	h.chatScript(srv, "", "Remember: I deploy to production only on Fridays after 3pm.\n/exit\n")
	before := len(srv.Requests())
	p := filepath.Join(h.dir, "p.jsonl")
	os.WriteFile(p, []byte(`{"prompt": "When can I deploy to production?"}`+"\n"), 0o600)
	if r := h.hermes("batch", "run", p, "--run", "mem", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-test-123456"); r.code != 0 {
		t.Fatalf("batch run: exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 1 || strings.Contains(reqs[0].LastUserText(), "recalled-memory") {
		t.Errorf("%d model calls; the prompt the model got: %s", len(reqs), reqs[len(reqs)-1].LastUserText())
	}
	e := readEntries(t, filepath.Join(h.dir, "batch", "mem", "trajectories.jsonl"))[0]
	if e.Conversations[1].Value != "When can I deploy to production?" {
		t.Errorf("human value %q", e.Conversations[1].Value)
	}
}
