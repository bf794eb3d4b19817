package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Ctrl-C during a tool interrupts it once: the chat shows the interrupted
// call once, and goes on.
func TestChatCtrlCMidToolShowsItOnce(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	mark := filepath.Join(work, "started")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("touch " + mark + "; sleep 30")}},
		llmtest.Reply{Text: "Next answer."})
	cmd := chatCommand(h, srv)
	cmd.Dir = work
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "wait a while\n")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command never started:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	waitFor(t, &out, "✗ terminal")
	io.WriteString(stdin, "go on\n")
	waitFor(t, &out, "Next answer.")
	io.WriteString(stdin, "/exit\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the chat ended with %v:\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), "✗ terminal"); n != 1 || strings.Count(out.String(), "interrupted") != 1 {
		t.Errorf("the interrupted call is shown %d times, or says it more than once:\n%s", n, out.String())
	}
}

// waitFor waits until out holds want.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("output never showed %q:\n%s", want, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFailureLine(t *testing.T) {
	for _, tc := range []struct{ name, code, msg, want string }{
		{"terminal", "interrupted", "terminal was interrupted: the turn was cancelled", "terminal was interrupted: the turn was cancelled"},
		{"read_file", "not_found", "/x does not exist", "read_file: not_found: /x does not exist"},
		{"web_fetch", "timeout", "no answer within 30s: timeout", "web_fetch: no answer within 30s: timeout"},
	} {
		if got := failureLine(tc.name, tc.code, tc.msg); got != tc.want {
			t.Errorf("failureLine(%q, %q, %q) = %q, want %q", tc.name, tc.code, tc.msg, got, tc.want)
		}
	}
}
