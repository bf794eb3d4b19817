package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// chatResult is what `hermes chat -q --json` prints.
type chatResult struct {
	SessionID  string `json:"session_id"`
	Final      string `json:"final"`
	Iterations int    `json:"iterations"`
	ToolCalls  []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Code   string `json:"error_code"`
	} `json:"tool_calls"`
	Usage   map[string]int `json:"usage"`
	Stopped string         `json:"stopped_reason"`
}

// chatIn runs `hermes chat --json -q PROMPT` in dir against srv with
// extra flags and returns the decoded result.
func (h *home) chatIn(srv *llmtest.Server, dir, prompt string, flags ...string) (chatResult, result) {
	h.t.Helper()
	h.cwd = dir
	args := append([]string{"chat", "--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1",
		"--model", "test-model", "--api-key", "sk-test-123456", "--json", "-q", prompt}, flags...)
	r := h.hermes(args...)
	var out chatResult
	r.decode(h.t, &out)
	return out, r
}

func terminalCall(command string) llm.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": command})
	return llm.ToolCall{Name: "terminal", Arguments: string(args)}
}

// lastToolResult returns the text of the last tool message the model was
// sent in request i.
func lastToolResult(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	msgs := srv.Requests()[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == llm.RoleTool {
			return msgs[j].Text()
		}
	}
	t.Fatalf("request %d carries no tool result", i)
	return ""
}

func TestChatTerminalKeepsDirectory(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("mkdir -p sub/deeper && cd sub && echo made")}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("pwd")}},
		llmtest.Reply{Text: "You are in sub."},
	)
	out, r := h.chatIn(srv, work, "make a dir and go there")
	if r.code != 0 || out.Stopped != "done" || out.Final != "You are in sub." || out.Iterations != 3 {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.code, out, r.stderr)
	}
	if len(out.ToolCalls) != 2 || out.ToolCalls[0].Status != "ok" || out.ToolCalls[1].Status != "ok" {
		t.Errorf("tool calls = %+v", out.ToolCalls)
	}
	pwd := lastToolResult(t, srv, 2)
	if !strings.Contains(pwd, filepath.Join(work, "sub")+`\n`) || !strings.Contains(pwd, `"exit_code":0`) {
		t.Errorf("the second command did not run in the directory the first cd-ed to: %s", pwd)
	}
	if out.SessionID == "" || out.Usage["input_tokens"] == 0 {
		t.Errorf("session id %q, usage %v", out.SessionID, out.Usage)
	}
}

func TestChatDangerousCommandNeedsApproval(t *testing.T) {
	work := t.TempDir()
	target := filepath.Join(work, "precious")
	if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	rm := terminalCall("rm -rf " + target)

	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{rm}}, llmtest.Reply{Text: "It was denied."})
	out, r := h.chatIn(srv, work, "delete precious")
	if r.code != 0 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Code != "denied" {
		t.Fatalf("exit %d, tool calls %+v\n%s", r.code, out.ToolCalls, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "recursive") {
		t.Errorf("the denial does not say which rule: %s", res)
	}

	// With --yolo the dangerous command runs, but a hardline one never does.
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{rm}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("mkfs.ext4 /dev/hermes-test-no-such-device")}},
		llmtest.Reply{Text: "Done."},
	)
	out, r = h.chatIn(srv, work, "delete precious, then format a disk", "--yolo")
	if r.code != 0 || len(out.ToolCalls) != 2 {
		t.Fatalf("exit %d, result %+v\n%s", r.code, out, r.stderr)
	}
	if out.ToolCalls[0].Status != "ok" {
		t.Errorf("--yolo did not run the dangerous command: %+v", out.ToolCalls[0])
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the approved rm -rf did not remove %s: %v", target, err)
	}
	if out.ToolCalls[1].Code != "denied" {
		t.Errorf("a hardline command ran under --yolo: %+v", out.ToolCalls[1])
	}
	if res := lastToolResult(t, srv, 4); !strings.Contains(res, "hardline") && !strings.Contains(res, "never") {
		t.Errorf("the hardline denial does not say it is never allowed: %s", res)
	}
}

func TestChatRepeatGuardStopsLoopingModel(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	loop := llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo again")}}
	srv.Enqueue(loop, loop, loop, loop, llmtest.Reply{Text: "unreachable"})
	out, r := h.chatIn(srv, t.TempDir(), "loop forever")
	if r.code != 0 || out.Stopped != "repeat_guard" {
		t.Fatalf("exit %d, result %+v\n%s", r.code, out, r.stderr)
	}
	if srv.Pending() != 1 || !strings.Contains(out.Final, "4 times") {
		t.Errorf("pending %d, final %q", srv.Pending(), out.Final)
	}
}

func TestChatParallelReadsReturnInOrder(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	var calls []llm.ToolCall
	for i := range 4 {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "session_search", Arguments: fmt.Sprintf(`{"query":"word%d"}`, i)})
	}
	srv.Enqueue(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "nothing found"})
	out, r := h.chatIn(srv, t.TempDir(), "search four things")
	if r.code != 0 || len(out.ToolCalls) != 4 {
		t.Fatalf("exit %d, result %+v\n%s", r.code, out, r.stderr)
	}
	msgs := srv.Requests()[1].Messages
	results := msgs[len(msgs)-4:]
	for i, m := range results {
		if m.Role != llm.RoleTool || m.ToolCallID != calls[i].ID || !strings.Contains(m.Text(), `"status":"ok"`) {
			t.Errorf("result %d answers %q (%s), want %s in call order", i, m.ToolCallID, m.Text(), calls[i].ID)
		}
	}
}

func TestChatConversation(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{Text: "First answer."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo from-the-shell")}},
		llmtest.Reply{Text: "Second answer."},
	)
	cmd := exec.Command(hermesBin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-test-123456")
	cmd.Env, cmd.Dir = h.env, t.TempDir()
	cmd.Stdin = strings.NewReader("hello\n\nrun something\n/exit\nnever read\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"First answer.", "⚙ terminal command: echo from-the-shell", "✓ terminal", "Second answer."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the conversation does not show %q:\n%s", want, out)
		}
	}
	var list []struct {
		ID           string `json:"id"`
		MessageCount int    `json:"message_count"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	if len(list) != 1 || list[0].MessageCount != 6 {
		t.Errorf("both turns should be one session of 6 messages: %+v", list)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the model was called %d times, want 3 (/exit must stop reading)", n)
	}
}

func TestChatToolResultsHideSecrets(t *testing.T) {
	h := newHome(t)
	h.write(".env", "ACME_SERVICE_TOKEN=acme-0123456789abcdef\n")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("cat " + filepath.Join(h.dir, ".env") + "; echo key=$OPENAI_API_KEY")}},
		llmtest.Reply{Text: "done"},
	)
	h.env = append(h.env, "OPENAI_API_KEY=sk-from-the-environment-42")
	// Reading a .env file needs approval; --yolo gives it, and what the
	// command prints is still redacted.
	_, r := h.chatIn(srv, t.TempDir(), "show me the env file", "--yolo")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastToolResult(t, srv, 1)
	if strings.Contains(res, "acme-0123456789abcdef") || !strings.Contains(res, "[REDACTED:ACME_SERVICE_TOKEN]") {
		t.Errorf("a secret from .env reached the model: %s", res)
	}
	if strings.Contains(res, "sk-from-the-environment-42") || !strings.Contains(res, `key=\n`) {
		t.Errorf("the command saw hermes's own API key: %s", res)
	}
}

func TestChatRejectsUnknownToolTimeout(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "agent:\n  tool_timeouts:\n    termnal: 5m\n")
	srv := llmtest.New(t)
	r := h.hermes("chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1", "--model", "m", "--api-key", "k", "-q", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, `agent.tool_timeouts: there is no tool named "termnal"`) || !strings.Contains(r.stderr, "terminal") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	if len(srv.Requests()) != 0 {
		t.Error("the model was called despite the bad configuration")
	}
}
