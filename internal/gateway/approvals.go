package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/safety"
)

// Approvals in a chat: a dangerous command is shown in the chat with
// buttons (once, session, always, deny) where the platform has them, or
// with the /approve and /deny commands where it has not, and the turn
// waits for an answer from someone allowed to give it. A button carries
// only a short random id, because platforms allow a few bytes (Telegram:
// 64); the request itself stays here. No answer before the approval
// timeout (the policy's) denies the command. Hardline commands never get
// here: the policy refuses them without asking.

// approvalPrefix starts the data of an approval button: "ap:<id>:<answer>".
const approvalPrefix = "ap:"

// approvals holds the requests waiting for an answer, by id.
type approvals struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
}

// pendingApproval is one request waiting in a chat.
type pendingApproval struct {
	id      string
	chatKey string
	chat    Chat
	// allowed says who may answer.
	allowed func(User) bool
	answer  chan decision
}

// decision is an answer and who gave it.
type decision struct {
	answer safety.Answer
	by     User
}

func newApprovals() *approvals {
	return &approvals{pending: make(map[string]*pendingApproval)}
}

// chatPrompter asks one chat, for the turns of one session.
type chatPrompter struct {
	a       *approvals
	chatKey string
	chat    Chat
	// buttons is set when the platform can show buttons.
	buttons bool
	// allowed says who may answer.
	allowed func(User) bool
	send    func(ctx context.Context, m Outgoing) (MessageRef, error)
	edit    func(ctx context.Context, ref MessageRef, m Outgoing) error
}

// Prompt shows the request in the chat and waits for an answer, or for
// ctx (the policy's timeout), which denies.
func (p chatPrompter) Prompt(ctx context.Context, r safety.Request) (safety.Answer, error) {
	id, err := newApprovalID()
	if err != nil {
		return safety.Deny, err
	}
	pa := &pendingApproval{id: id, chatKey: p.chatKey, chat: p.chat, allowed: p.allowed, answer: make(chan decision, 1)}
	p.a.mu.Lock()
	p.a.pending[id] = pa
	p.a.mu.Unlock()
	defer func() {
		p.a.mu.Lock()
		delete(p.a.pending, id)
		p.a.mu.Unlock()
	}()

	text := approvalText(r)
	m := Outgoing{Text: text}
	if p.buttons {
		m.Buttons = [][]Button{
			{{Text: "Allow once", Data: approvalPrefix + id + ":o"}, {Text: "For this session", Data: approvalPrefix + id + ":s"}},
			{{Text: "Always", Data: approvalPrefix + id + ":a"}, {Text: "Deny", Data: approvalPrefix + id + ":d"}},
		}
	} else {
		m.Text += "\n\nAnswer /approve (once), /approve session, /approve always, or /deny."
	}
	ref, err := p.send(ctx, m)
	if err != nil {
		return safety.Deny, fmt.Errorf("asking the chat for approval: %w", err)
	}
	// The decision is shown by editing the request, without its buttons,
	// whatever becomes of the turn.
	done := func(note string) {
		_ = p.edit(context.WithoutCancel(ctx), ref, Outgoing{Text: text + "\n\n" + note})
	}
	select {
	case d := <-pa.answer:
		safety.NoteApprover(ctx, d.by.Name+" ("+d.by.ID+")")
		if d.answer == safety.Deny {
			done("❌ Denied by " + d.by.Name + ".")
		} else {
			done("✅ Allowed (" + d.answer.String() + ") by " + d.by.Name + ".")
		}
		return d.answer, nil
	case <-ctx.Done():
		done("⏱ No answer in time: denied.")
		return safety.Deny, ctx.Err()
	}
}

// approvalText is the request as the chat shows it. The command is shown
// through safety's Display (escaped, cut only around what the rule
// matched) inside a code fence longer than any run of backticks in it, so
// the command cannot close the fence and write its own lines.
func approvalText(r safety.Request) string {
	cmd, match := r.Display(600)
	var b strings.Builder
	b.WriteString("⚠️ hermes wants to run a command that needs your approval")
	if r.Verdict.Description != "" {
		b.WriteString(" (" + r.Verdict.Description + ")")
	}
	b.WriteString(":\n")
	b.WriteString(fenced(cmd))
	if match != "" {
		b.WriteString("\nwhich runs:\n" + fenced(match))
	}
	if r.Dir != "" {
		b.WriteString("\nin the directory:\n" + fenced(safety.Escape(r.Dir)))
	}
	return b.String()
}

// fenced puts s in a code fence that s cannot close.
func fenced(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + s + "\n" + f
}

// errNotWaiting and errNotAllowed are what a press or a command that
// cannot answer is told.
const (
	errNotWaiting = Error("that request is no longer waiting for an answer")
	errNotAllowed = Error("you are not allowed to answer approval requests here")
)

// press answers the request a button press names. The press must come
// from the chat the request was sent to and from someone allowed; a
// press of a button of an old request, of another chat, or with data not
// made here is refused.
func (a *approvals) press(ev Event) (safety.Answer, error) {
	rest, ok := strings.CutPrefix(ev.Data, approvalPrefix)
	if !ok {
		return 0, errNotWaiting
	}
	id, letter, ok := strings.Cut(rest, ":")
	if !ok {
		return 0, errNotWaiting
	}
	ans, err := safety.ParseAnswer(letter)
	if err != nil {
		return 0, errNotWaiting
	}
	a.mu.Lock()
	pa, ok := a.pending[id]
	a.mu.Unlock()
	if !ok || pa.chat.ID != ev.Chat.ID || pa.chat.Thread != ev.Chat.Thread {
		return 0, errNotWaiting
	}
	return ans, a.decide(pa, ans, ev.User)
}

// command answers the request waiting in chat chatKey from /approve
// [session|always] or /deny.
func (a *approvals) command(chatKey string, u User, deny bool, args string) (safety.Answer, error) {
	ans := safety.Once
	switch strings.ToLower(strings.TrimSpace(args)) {
	case "", "once":
	case "session":
		ans = safety.Session
	case "always":
		ans = safety.Always
	default:
		return 0, fmt.Errorf("/approve takes once, session or always, not %q", args)
	}
	if deny {
		ans = safety.Deny
	}
	a.mu.Lock()
	var pa *pendingApproval
	for _, p := range a.pending {
		if p.chatKey == chatKey {
			pa = p
			break
		}
	}
	a.mu.Unlock()
	if pa == nil {
		return 0, errors.New("nothing is waiting for approval in this chat")
	}
	return ans, a.decide(pa, ans, u)
}

// decide hands the answer to the waiting request, once.
func (a *approvals) decide(pa *pendingApproval, ans safety.Answer, u User) error {
	if pa.allowed != nil && !pa.allowed(u) {
		return errNotAllowed
	}
	select {
	case pa.answer <- decision{answer: ans, by: u}:
		return nil
	default:
		return errNotWaiting // answered already
	}
}

// newApprovalID returns a random id: 12 hex characters, so that a
// button's data stays far below Telegram's 64 bytes and cannot be guessed.
func newApprovalID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
