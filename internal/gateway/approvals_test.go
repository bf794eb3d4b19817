package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

// fakeChat records what a prompter sends and edits.
type fakeChat struct {
	mu    sync.Mutex
	sent  []Outgoing
	edits []Outgoing
	ready chan struct{}
}

func newFakeChat() *fakeChat { return &fakeChat{ready: make(chan struct{}, 10)} }

func (f *fakeChat) send(_ context.Context, m Outgoing) (MessageRef, error) {
	f.mu.Lock()
	f.sent = append(f.sent, m)
	f.mu.Unlock()
	f.ready <- struct{}{}
	return MessageRef{ID: "100"}, nil
}

func (f *fakeChat) edit(_ context.Context, _ MessageRef, m Outgoing) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edits = append(f.edits, m)
	return nil
}

func (f *fakeChat) last() (Outgoing, []Outgoing) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[len(f.sent)-1], append([]Outgoing(nil), f.edits...)
}

var (
	owner    = User{ID: "1", Name: "owner"}
	stranger = User{ID: "2", Name: "stranger"}
	here     = Chat{ID: "-100", Type: Group}
)

func prompter(a *approvals, f *fakeChat, buttons bool) chatPrompter {
	return chatPrompter{a: a, chatKey: "k", chat: here, buttons: buttons,
		allowed: func(u User) bool { return u.ID == owner.ID }, send: f.send, edit: f.edit}
}

func request(cmd string) safety.Request {
	return safety.Request{SessionID: "s", Command: cmd, Verdict: shell.Verdict{Level: shell.Dangerous, Rule: "recursive_delete", Description: "recursive delete", Match: cmd}}
}

// ask runs Prompt in the background and returns where its answer arrives
// once the request is in the chat.
func ask(t *testing.T, ctx context.Context, p chatPrompter, f *fakeChat, cmd string) <-chan safety.Answer {
	t.Helper()
	got := make(chan safety.Answer, 1)
	go func() {
		ans, _ := p.Prompt(ctx, request(cmd))
		got <- ans
	}()
	waitFor(t, chanOf(f.ready), "the approval request")
	return got
}

func chanOf(c chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() { <-c; close(out) }()
	return out
}

// Only a press by an allowed person, in the chat the request went to, on
// a button of a request still waiting, answers it; the decision replaces
// the buttons.
func TestApprovalButtons(t *testing.T) {
	a, f := newApprovals(), newFakeChat()
	got := ask(t, context.Background(), prompter(a, f, true), f, "rm -rf build")
	m, _ := f.last()
	if len(m.Buttons) == 0 {
		t.Fatalf("no buttons in %+v", m)
	}
	var session string
	for _, row := range m.Buttons {
		for _, b := range row {
			if len(b.Data) > 64 {
				t.Errorf("button data %q is %d bytes; Telegram takes 64", b.Data, len(b.Data))
			}
			if b.Text == "For this session" {
				session = b.Data
			}
		}
	}
	for _, tt := range []struct {
		name string
		ev   Event
		want error
	}{
		{"another chat", Event{Chat: Chat{ID: "-200"}, User: owner, Data: session}, errNotWaiting},
		{"another topic", Event{Chat: Chat{ID: here.ID, Thread: "7"}, User: owner, Data: session}, errNotWaiting},
		{"a stranger", Event{Chat: here, User: stranger, Data: session}, errNotAllowed},
		{"a guessed id", Event{Chat: here, User: owner, Data: "ap:000000000000:a"}, errNotWaiting},
		{"not ours", Event{Chat: here, User: owner, Data: "something else"}, errNotWaiting},
		{"a bad answer", Event{Chat: here, User: owner, Data: strings.TrimSuffix(session, "s") + "x"}, errNotWaiting},
	} {
		if _, err := a.press(tt.ev); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if ans, err := a.press(Event{Chat: here, User: owner, Data: session}); err != nil || ans != safety.Session {
		t.Fatalf("the owner's press: %v, %v", ans, err)
	}
	if ans := <-got; ans != safety.Session {
		t.Errorf("Prompt returned %v, want session", ans)
	}
	if _, err := a.press(Event{Chat: here, User: owner, Data: session}); !errors.Is(err, errNotWaiting) {
		t.Errorf("a second press: %v, want %v", err, errNotWaiting)
	}
	_, edits := f.last()
	if len(edits) != 1 || len(edits[0].Buttons) != 0 || !strings.Contains(edits[0].Text, "Allowed (session) by owner") {
		t.Errorf("the request was edited to %+v", edits)
	}
}

// Without buttons, /approve and /deny answer the chat's waiting request.
func TestApprovalCommands(t *testing.T) {
	a, f := newApprovals(), newFakeChat()
	if _, err := a.command("k", owner, false, ""); err == nil {
		t.Error("/approve with nothing waiting succeeded")
	}
	got := ask(t, context.Background(), prompter(a, f, false), f, "git push --force")
	if m, _ := f.last(); len(m.Buttons) != 0 || !strings.Contains(m.Text, "/approve") {
		t.Errorf("a platform without buttons was sent %+v", m)
	}
	if _, err := a.command("k", owner, false, "forever"); err == nil {
		t.Error("/approve forever was accepted")
	}
	if _, err := a.command("k", stranger, false, ""); !errors.Is(err, errNotAllowed) {
		t.Errorf("a stranger's /approve: %v", err)
	}
	if _, err := a.command("other", owner, false, ""); err == nil {
		t.Error("/approve in another chat answered this one")
	}
	if _, err := a.command("k", owner, true, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-got; ans != safety.Deny {
		t.Errorf("after /deny Prompt returned %v", ans)
	}
}

// No answer in time denies, and says so in the chat.
func TestApprovalTimeout(t *testing.T) {
	a, f := newApprovals(), newFakeChat()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ans := <-ask(t, ctx, prompter(a, f, true), f, "rm -rf build"); ans != safety.Deny {
		t.Errorf("Prompt returned %v after the timeout, want deny", ans)
	}
	if _, edits := f.last(); len(edits) != 1 || !strings.Contains(edits[0].Text, "No answer in time") {
		t.Errorf("the request was edited to %+v", edits)
	}
}

// A command cannot close the code fence it is shown in, nor carry escape
// sequences or line breaks into the chat.
func TestApprovalTextCannotLie(t *testing.T) {
	cmd := "echo ```\n✅ Allowed by owner\n``` \x1b[2K; rm -rf ~"
	text := approvalText(request(cmd))
	if strings.ContainsAny(text, "\x1b") || strings.Contains(text, "\n✅") {
		t.Errorf("the command's own lines or escapes reached the chat:\n%s", text)
	}
	if !strings.Contains(text, "\n````\n") {
		t.Errorf("the fence is not longer than the command's backticks:\n%s", text)
	}
	if !strings.Contains(text, "rm -rf ~") {
		t.Errorf("the dangerous part is not shown:\n%s", text)
	}
}
