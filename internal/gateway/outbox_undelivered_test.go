package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOutboxGivesUpToUndelivered(t *testing.T) {
	blocked := &SendError{Kind: Permanent, Message: "Forbidden: bot was blocked by the user"}
	down := &SendError{Kind: Temporary, Message: "Bad Gateway"}
	tests := []struct {
		name     string
		errs     []error
		attempts int
		want     error
	}{
		{"permanent", []error{blocked}, 1, blocked},
		{"temporary until attempts run out", []error{down, down, down}, 3, down},
		{"cannot edit", []error{ErrCannotEdit}, 1, ErrCannotEdit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ot := newOutboxTest(t, false, OutboxOptions{MaxAttempts: 3, Backoff: time.Second})
			ot.p.failNext("secret reply", tt.errs...)
			it := ot.queue("sess-42", chatA, "secret reply")
			after := ot.queue("sess-42", chatA, "next")
			at := time.Duration(0)
			for i := range tt.attempts {
				ot.expect("send", "secret reply", at)
				if i+1 < tt.attempts {
					ot.advance(time.Second << i)
					at += time.Second << i
				}
			}
			if _, err := ot.result(it); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			u := ot.nextUndelivered()
			if u.SessionID != "sess-42" || u.Chat != chatA || u.Message.Text != "secret reply" ||
				!errors.Is(u.Err, tt.want) || u.Attempts != tt.attempts || !u.Time.Equal(ot.t0.Add(at)) {
				t.Fatalf("undelivered %+v", u)
			}
			logs := ot.logs.String()
			if !strings.Contains(logs, "session_id=sess-42") || !strings.Contains(logs, "could not be delivered") {
				t.Errorf("the loss is not logged with its session:\n%s", logs)
			}
			if strings.Contains(logs, "secret reply") {
				t.Errorf("the log holds the reply's text:\n%s", logs)
			}
			// The chat goes on with its next message.
			ot.advance(time.Second)
			ot.expect("send", "next", at+time.Second)
			if _, err := ot.result(after); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestOutboxEditsCoalesce(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ctx := context.Background()
	it := ot.queue("s1", chatA, "reply")
	ot.expect("send", "reply", 0)
	ref, err := ot.result(it)
	if err != nil {
		t.Fatal(err)
	}
	other := MessageRef{Chat: chatA, ID: "other"}
	for _, text := range []string{"reply a", "reply ab", "reply abc"} {
		if err := ot.o.Edit(ctx, "s1", ref, Outgoing{Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := ot.o.Edit(ctx, "s1", other, Outgoing{Text: "other " + text}); err != nil {
			t.Fatal(err)
		}
	}
	ot.advance(time.Second)
	ot.expect("edit", "reply abc", time.Second)
	ot.advance(time.Second)
	ot.expect("edit", "other reply abc", 2*time.Second)
	// An edit that is being sent is not changed; the newer one follows.
	ot.p.failNext("v1", &SendError{Kind: RateLimited, RetryAfter: 5 * time.Second})
	ot.advance(time.Second)
	if err := ot.o.Edit(ctx, "s1", ref, Outgoing{Text: "v1"}); err != nil {
		t.Fatal(err)
	}
	ot.expect("edit", "v1", 3*time.Second)
	ot.quiet(1)
	// A newer edit queued during the hold replaces the one that was held.
	if err := ot.o.Edit(ctx, "s1", ref, Outgoing{Text: "v2"}); err != nil {
		t.Fatal(err)
	}
	ot.clk.BlockUntil(1)
	ot.clk.Advance(5 * time.Second)
	ot.expect("edit", "v2", 8*time.Second)
	ot.advance(time.Second)
	ot.quiet(0)
}

func TestOutboxEditOnPlatformThatCannotEdit(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.o.canEdit = false
	if err := ot.o.Edit(context.Background(), "s", MessageRef{Chat: chatA, ID: "1"}, Outgoing{Text: "x"}); !errors.Is(err, ErrCannotEdit) {
		t.Fatalf("err = %v, want ErrCannotEdit", err)
	}
}

func TestOutboxCloseDrains(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	items := []*item{ot.queue("s1", chatA, "1"), ot.queue("s1", chatA, "2"), ot.queue("s2", chatB, "3")}
	closed := make(chan error)
	go func() { closed <- ot.o.Close(context.Background()) }()
	ot.next()
	ot.next()
	ot.advance(time.Second) // chat B's goroutine has ended without waiting for its bucket
	ot.expect("send", "2", time.Second)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if _, err := ot.result(it); err != nil {
			t.Errorf("send of %q: %v", it.msg.Text, err)
		}
	}
	// After Close a message is not taken, and not lost either.
	_, err := ot.o.Send(context.Background(), "s3", chatA, Outgoing{Text: "late"})
	if !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
	if u := ot.nextUndelivered(); u.SessionID != "s3" || u.Message.Text != "late" || !errors.Is(u.Err, ErrOutboxClosed) {
		t.Fatalf("undelivered %+v", u)
	}
	if err := ot.o.Edit(context.Background(), "s3", MessageRef{Chat: chatA, ID: "1"}, Outgoing{Text: "late edit"}); !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("Edit after Close: %v", err)
	}
}

func TestOutboxCloseHandsTheRestToUndelivered(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.p.failNext("held", &SendError{Kind: RateLimited, RetryAfter: time.Hour})
	held, queued := ot.queue("s1", chatA, "held"), ot.queue("s1", chatA, "queued")
	ot.expect("send", "held", 0)
	ot.quiet(1)
	ctx, cancel := context.WithCancel(context.Background())
	closed := make(chan error)
	go func() { closed <- ot.o.Close(ctx) }()
	cancel()
	if err := <-closed; !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	for _, it := range []*item{held, queued} {
		if _, err := ot.result(it); !errors.Is(err, ErrOutboxClosed) {
			t.Errorf("send of %q: %v", it.msg.Text, err)
		}
	}
	got := []string{ot.nextUndelivered().Message.Text, ot.nextUndelivered().Message.Text}
	if got[0] != "held" || got[1] != "queued" {
		t.Fatalf("undelivered %q, want held and queued in order", got)
	}
}

func TestOutboxSendWaitEndsWithCtx(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.queue("s1", chatA, "first")
	ot.expect("send", "first", 0)
	base, cancel := context.WithCancel(context.Background())
	ctx := &waitingCtx{Context: base, waiting: make(chan struct{})}
	done := make(chan error)
	go func() {
		_, err := ot.o.Send(ctx, "s1", chatA, Outgoing{Text: "second"})
		done <- err
	}()
	<-ctx.waiting
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Send = %v, want context.Canceled", err)
	}
	// The message was queued, and is still sent.
	ot.advance(time.Second)
	ot.expect("send", "second", time.Second)
}

// waitingCtx tells a test when Send, having queued its message, begins
// to wait on Done.
type waitingCtx struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *waitingCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

func TestOutboxRefusesTextOverTheLimit(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.o.maxText, ot.o.measure = 4, UTF16Len
	_, err := ot.o.Send(context.Background(), "s1", chatA, Outgoing{Text: "ab😀c"})
	if err == nil || !strings.Contains(err.Error(), "Outgoing.Text measures 5, over fake's limit of 4") {
		t.Fatalf("Send = %v", err)
	}
	err = ot.o.Edit(context.Background(), "s1", MessageRef{Chat: chatA, ID: "1"}, Outgoing{Text: "abcde"})
	if err == nil || !strings.Contains(err.Error(), "Caps.MaxText") {
		t.Fatalf("Edit = %v", err)
	}
	if _, err := ot.o.Send(context.Background(), "s1", chatA, Outgoing{Text: "a😀b"}); err != nil {
		t.Fatalf("Send of a text that fits: %v", err)
	}
	ot.expect("send", "a😀b", 0)
}

func TestEscapeMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"plain text 😀":       "plain text 😀",
		"*b* _i_ `c` [l](u)": "\\*b\\* \\_i\\_ \\`c\\` \\[l\\]\\(u\\)",
		"a\\b > # - 1.":      "a\\\\b \\> \\# \\- 1\\.",
	} {
		if got := EscapeMarkdown(in); got != want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}
