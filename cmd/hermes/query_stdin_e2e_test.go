package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// `-q -` takes the message from stdin, whole (several lines, without the
// final newline); an empty stdin is refused before any model call.
func TestChatQueryFromStdin(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "two files changed"})
	run := func(stdin string) (string, string, error) {
		cmd := exec.Command(hermesBin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
			"--model", "test-model", "--api-key", "sk-test-123456", "-q", "-")
		cmd.Env, cmd.Stdin = h.env, strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	out, stderr, err := run("what changed?\n--- a/x\n+++ b/x\n")
	if err != nil || !strings.Contains(out, "two files changed") {
		t.Fatalf("exit %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	if got := srv.Requests()[0].LastUserText(); got != "what changed?\n--- a/x\n+++ b/x" {
		t.Errorf("the model was sent %q", got)
	}
	if _, stderr, err := run(" \n"); err == nil || !strings.Contains(stderr, "stdin held no message") {
		t.Errorf("an empty stdin: %v\n%s", err, stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}
