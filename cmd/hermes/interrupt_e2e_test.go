package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// waitRequests waits until srv has received n requests.
func waitRequests(t *testing.T, srv *llmtest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the model got %d requests, want %d", len(srv.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func chatCommand(h *home, srv *llmtest.Server, args ...string) *exec.Cmd {
	cmd := exec.Command(hermesBin, append([]string{"chat", "--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1",
		"--model", "test-model", "--api-key", "sk-test-123456"}, args...)...)
	cmd.Env, cmd.Dir = h.env, h.dir
	return cmd
}

func TestChatCtrlCInterruptsTurnNotConversation(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "too slow", Delay: time.Minute}, llmtest.Reply{Text: "Quick answer."})
	cmd := chatCommand(h, srv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "first question\n")
	waitRequests(t, srv, 1)
	cmd.Process.Signal(os.Interrupt)
	io.WriteString(stdin, "second question\n")
	waitRequests(t, srv, 2)
	io.WriteString(stdin, "/exit\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the conversation ended with %v:\n%s", err, out.String())
	}
	for _, want := range []string{"interrupting", "Quick answer."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// The interrupted question stays in the conversation, merged with the
	// next one so the model sees user and assistant alternate.
	second := srv.Requests()[1]
	if got := second.LastUserText(); !strings.Contains(got, "first question") || !strings.Contains(got, "second question") {
		t.Errorf("the second request's user message is %q", got)
	}
	var shown storedSession
	var list []struct {
		ID string `json:"id"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	h.hermes("sessions", "show", list[0].ID, "--json").decode(t, &shown)
	if len(shown.Messages) != 3 {
		t.Errorf("stored %d messages, want both questions and the answer: %+v", len(shown.Messages), shown.Messages)
	}
}

func TestChatOnceInterruptedExits130(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "never", Delay: time.Minute})
	cmd := chatCommand(h, srv, "-q", "a slow question")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitRequests(t, srv, 1)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130:\n%s", err, out.String())
	}
	var list []struct {
		MessageCount int `json:"message_count"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	if len(list) != 1 || list[0].MessageCount != 1 {
		t.Errorf("the question was not kept: %+v", list)
	}
}
