package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A deploy killed half-way must not be run again by itself when the
// session goes on: the model is told the call may or may not have taken
// effect and decides. The stand-in model here deploys when asked, and,
// told that a deploy's outcome is unknown, says so instead of repeating
// it; before hermes kept the call on record, the resumed session held only
// the question, and the model deployed a second time.
func TestChatKilledDuringToolDoesNotRepeatIt(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	marker, pidFile := filepath.Join(work, "deployed"), filepath.Join(work, "pid")
	// The deploy appends a line to the marker; the first one then hangs,
	// so that hermes can be killed while it runs.
	deploy := "echo x >> " + marker + "; echo $$ > " + pidFile + "; test $(wc -l < " + marker + ") -gt 1 || sleep 60"
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool && strings.Contains(m.Text(), "may or may not have taken effect") {
				return llmtest.Reply{Text: "The deploy was cut off and may have run; check before deploying again."}
			}
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleTool {
			return llmtest.Reply{Text: "Deployed."}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(deploy)}}
	})
	cmd := exec.Command(hermesBin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-test-123456", "--json", "-q", "deploy the site")
	cmd.Env, cmd.Dir = h.env, work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killDuringTool(t, cmd, &stderr, pidFile)

	before := len(srv.Requests())
	out, r := h.chatIn(srv, work, "go on", "-c")
	if r.code != 0 || out.Stopped != "done" || !strings.Contains(out.Final, "may have run") {
		t.Fatalf("resume: exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	if b, _ := os.ReadFile(marker); strings.Count(string(b), "x") != 1 {
		t.Errorf("the deploy ran %d times, want once:\n%s", strings.Count(string(b), "x"), b)
	}
	reqs := srv.Requests()
	if len(reqs) != before+1 {
		t.Fatalf("the resumed turn made %d model calls, want 1", len(reqs)-before)
	}
	if res := lastToolResult(t, srv, before); !strings.Contains(res, "may or may not have taken effect") || !strings.Contains(res, "interrupted") {
		t.Errorf("the lost call was answered %q", res)
	}
	var shown storedSession
	h.hermes("sessions", "show", out.SessionID, "--json").decode(t, &shown)
	if len(shown.Messages) != 5 {
		t.Errorf("the session holds %d messages, want question, call, lost result, question, answer: %+v", len(shown.Messages), shown.Messages)
	}
	checkPairs(t, shown.Messages)
	checkAlternation(t, shown.Messages)
}
