package main

import (
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// At a terminal, sessions delete asks: anything but yes keeps the session.
func TestSessionsDeleteAsksAtATerminal(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "hello"})
	out, r := h.chatIn(srv, t.TempDir(), "keep me")
	if r.code != 0 {
		t.Fatalf("chat: %s", r.stderr)
	}
	del := func(answer string) string {
		master, slave := openPTY(t)
		cmd := exec.Command(hermesBin, "sessions", "delete", out.SessionID)
		cmd.Env, cmd.Stdin = h.env, slave
		var buf syncBuffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		go io.Copy(io.Discard, master)
		if _, err := io.WriteString(master, answer+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("delete: %v\n%s", err, buf.String())
		}
		return buf.String()
	}
	if got := del("n"); !strings.Contains(got, "[y/N]") || !strings.Contains(got, "keep me") || !strings.Contains(got, "Kept.") {
		t.Fatalf("answering n:\n%s", got)
	}
	if r := h.hermes("sessions", "show", out.SessionID); r.code != 0 {
		t.Fatalf("the session went after answering n: %s", r.stderr)
	}
	if got := del("y"); !strings.Contains(got, "Deleted session") {
		t.Fatalf("answering y:\n%s", got)
	}
	if r := h.hermes("sessions", "show", out.SessionID); r.code != 1 {
		t.Fatalf("the session is still there after answering y")
	}
}
