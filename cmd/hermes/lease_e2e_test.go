package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
)

// Four processes continuing one session at once once interleaved their
// turns: four questions in a row, then four answers, and every later
// request carried that history. Now each turn waits for the one running
// (or gives up saying the session is busy), and the session alternates.
func TestChatOneWriterPerSession(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Started."})
	first, r := h.chatIn(srv, work, "start")
	if r.code != 0 {
		t.Fatalf("first turn: exit %d\n%s", r.code, r.stderr)
	}
	// Each answer takes a while, so that the turns overlap.
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "Answer to " + r.LastUserText() + ".", Delay: 300 * time.Millisecond}
	})
	const n = 4
	cmds := make([]*exec.Cmd, n)
	stderr := make([]*bytes.Buffer, n)
	for i := range n {
		cmds[i] = chatCommand(h, srv, "-c", "-q", fmt.Sprintf("question %d", i))
		cmds[i].Dir = work
		stderr[i] = &bytes.Buffer{}
		cmds[i].Stderr = stderr[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	answered, waited := 0, 0
	for i, c := range cmds {
		err := c.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			answered++
		case errors.As(err, &ee) && ee.ExitCode() == 75 && strings.Contains(stderr[i].String(), "is busy"):
		default:
			t.Errorf("chat %d: %v\n%s", i, err, stderr[i].String())
		}
		if strings.Contains(stderr[i].String(), "waiting for it to finish") {
			waited++
		}
	}
	t.Logf("%d of %d answered, %d waited for another", answered, n, waited)

	var shown storedSession
	h.hermes("sessions", "show", first.SessionID, "--json").decode(t, &shown)
	msgs := shown.Messages
	if len(msgs) != 2+2*answered {
		t.Fatalf("the session holds %d messages, want %d: %+v", len(msgs), 2+2*answered, msgs)
	}
	checkAlternation(t, msgs)
	for i := 2; i+1 < len(msgs); i += 2 {
		if q, a := msgs[i].Text(), msgs[i+1].Text(); a != "Answer to "+q+"." {
			t.Errorf("message %d answers %q with %q", i+1, q, a)
		}
	}
	// A later turn sends the whole, well-formed history.
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "Done."} })
	if out, r := h.chatIn(srv, work, "last question", "-c"); r.code != 0 || out.SessionID != first.SessionID {
		t.Fatalf("last turn: exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if roles := len(last); roles != len(msgs)+2 || last[len(last)-1].Role != llm.RoleUser {
		t.Errorf("the last request carried %d messages: %+v", roles, last)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the model saw a broken conversation: %v", v)
	}
}

// A chat whose session another process holds says which one it waits
// for, and Ctrl-C while it waits ends it with 130.
func TestChatWaitingForBusySessionNamesTheHolder(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Started."})
	first, r := h.chatIn(srv, work, "start")
	if r.code != 0 {
		t.Fatalf("first turn: exit %d\n%s", r.code, r.stderr)
	}
	st, err := sqlite.Open(filepath.Join(h.dir, "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.AcquireLease(t.Context(), session.LeaseRequest{SessionID: first.SessionID, Holder: "build-box/4242",
		Now: time.Now(), TTL: time.Hour}); err != nil || !got.Held {
		t.Fatalf("holding the session: %+v %v", got, err)
	}
	cmd := chatCommand(h, srv, "-c", "-q", "are you there?")
	cmd.Dir = work
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "waiting for it to finish") {
		if time.Now().After(deadline) {
			t.Fatalf("no word of waiting:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if msg := stderr.String(); !strings.Contains(msg, "is busy") || !strings.Contains(msg, "build-box/4242") {
		t.Errorf("the notice does not name the process holding the session:\n%s", msg)
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130\n%s", err, stderr.String())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want only the first turn", n)
	}
}
