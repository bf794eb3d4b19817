package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	chatA  = Chat{ID: "100", Type: DM}
	chatB  = Chat{ID: "200", Type: Group}
	chatA7 = Chat{ID: "100", Type: Group, Thread: "7"}
)

func TestOutboxPacesEachChat(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	a1, a2, a3 := ot.queue("s1", chatA, "a1"), ot.queue("s1", chatA, "a2"), ot.queue("s1", chatA, "a3")
	ot.queue("s2", chatB, "b1")
	got := map[string]bool{ot.next().text: true, ot.next().text: true}
	if !got["a1"] || !got["b1"] {
		t.Fatalf("first calls %v, want a1 and b1 at once", got)
	}
	ot.quiet(2) // a2 waits for chat A's pace; chat B waits for its bucket
	ot.clk.Advance(999 * time.Millisecond)
	ot.quiet(2)
	ot.clk.Advance(time.Millisecond)
	ot.expect("send", "a2", time.Second)
	if k := <-ot.exited; k != (chatKey{id: chatB.ID}) {
		t.Fatalf("goroutine of %v ended, want chat B's once its bucket is full", k)
	}
	ot.advance(time.Second)
	ot.expect("send", "a3", 2*time.Second)
	for _, it := range []*item{a1, a2, a3} {
		if ref, err := ot.result(it); err != nil || ref.ID == "" || ref.Chat != chatA {
			t.Errorf("send of %q: %+v, %v", it.msg.Text, ref, err)
		}
	}
	// Idle, the chat costs nothing: its goroutine ends once the bucket is
	// full again.
	ot.advance(time.Second)
	if k := <-ot.exited; k != (chatKey{id: chatA.ID}) {
		t.Fatalf("goroutine of %v ended, want chat A's", k)
	}
	ot.o.mu.Lock()
	defer ot.o.mu.Unlock()
	if len(ot.o.chats) != 0 || ot.o.workers != 0 || ot.clk.Waiters() != 0 {
		t.Fatalf("idle outbox holds %d chats, %d goroutines, %d timers", len(ot.o.chats), ot.o.workers, ot.clk.Waiters())
	}
}

func TestOutboxBurst(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{Burst: 3})
	for _, text := range []string{"1", "2", "3", "4", "5"} {
		ot.queue("s", chatA, text)
	}
	ot.expect("send", "1", 0)
	ot.expect("send", "2", 0)
	ot.expect("send", "3", 0)
	ot.advance(time.Second)
	ot.expect("send", "4", time.Second)
	ot.advance(time.Second)
	ot.expect("send", "5", 2*time.Second)
}

func TestOutboxChatsDoNotWaitForEachOther(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.p.failNext("a1", &SendError{Kind: RateLimited, RetryAfter: 30 * time.Second})
	ot.queue("s1", chatA, "a1")
	ot.queue("s1", chatA, "a2")
	ot.queue("s2", chatB, "b1")
	ot.queue("s2", chatB, "b2")
	ot.queue("s3", chatA7, "t1") // a thread of chat A is a queue of its own
	got := map[string]bool{}
	for range 3 {
		got[ot.next().text] = true
	}
	if !got["a1"] || !got["b1"] || !got["t1"] {
		t.Fatalf("first calls %v, want a1, b1 and t1 at once", got)
	}
	ot.quiet(3)
	ot.clk.Advance(time.Second)
	ot.expect("send", "b2", time.Second)
	<-ot.exited // the thread's bucket is full again
	ot.quiet(2)
	ot.clk.Advance(29 * time.Second)
	ot.expect("send", "a1", 30*time.Second)
}

func TestOutboxRateLimitHoldsTheWholeChat(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ref := MessageRef{Chat: chatA, ID: "41"}
	ot.p.failNext("m1 *bold*", &SendError{Kind: RateLimited, RetryAfter: 10 * time.Second, Message: "Too Many Requests"})
	items := []*item{ot.queue("s1", chatA, "m1 *bold*"), ot.queue("s1", chatA, "m2")}
	if err := ot.o.Edit(context.Background(), "s1", ref, Outgoing{Text: "edited"}); err != nil {
		t.Fatal(err)
	}
	ot.expect("send", "m1 *bold*", 0)
	ot.quiet(1)
	items = append(items, ot.queue("s1", chatA, "m3")) // queued during the hold
	ot.clk.BlockUntil(1)
	ot.clk.Advance(9 * time.Second)
	ot.advance(time.Second)
	// The same text, not a plain-text resend: a rate limit is no
	// formatting error.
	ot.expect("send", "m1 *bold*", 10*time.Second)
	for i, want := range []string{"m2", "edited", "m3"} {
		ot.advance(time.Second)
		c := ot.expect(map[bool]string{true: "edit", false: "send"}[want == "edited"], want, time.Duration(11+i)*time.Second)
		if want == "edited" && c.ref != ref {
			t.Errorf("edit of %+v, want %+v", c.ref, ref)
		}
	}
	for _, it := range items {
		if _, err := ot.result(it); err != nil {
			t.Errorf("send of %q: %v", it.msg.Text, err)
		}
	}
	if !strings.Contains(ot.logs.String(), "retry_after=10s") {
		t.Errorf("the hold is not logged:\n%s", ot.logs)
	}
}

func TestOutboxBadFormatResendsPlainOnce(t *testing.T) {
	badFormat := &SendError{Kind: BadFormat, Message: "Bad Request: can't parse entities"}
	t.Run("escaped", func(t *testing.T) {
		ot := newOutboxTest(t, false, OutboxOptions{})
		ot.p.failNext("**a_b** [x](y)", badFormat)
		it := ot.queue("s1", chatA, "**a_b** [x](y)")
		ot.expect("send", "**a_b** [x](y)", 0)
		ot.advance(time.Second)
		ot.expect("send", `\*\*a\_b\*\* \[x\]\(y\)`, time.Second)
		if _, err := ot.result(it); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("plain sender", func(t *testing.T) {
		ot := newOutboxTest(t, true, OutboxOptions{})
		ot.p.failNext("*x*", badFormat)
		ot.p.failNext("*y*", badFormat)
		ref := MessageRef{Chat: chatA, ID: "9"}
		it := ot.queue("s1", chatA, "*x*")
		if err := ot.o.Edit(context.Background(), "s1", ref, Outgoing{Text: "*y*"}); err != nil {
			t.Fatal(err)
		}
		ot.expect("send", "*x*", 0)
		for i, op := range []string{"sendPlain", "edit", "editPlain"} {
			ot.advance(time.Second)
			ot.expect(op, map[bool]string{true: "*x*", false: "*y*"}[i == 0], time.Duration(i+1)*time.Second)
		}
		if _, err := ot.result(it); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("only once", func(t *testing.T) {
		ot := newOutboxTest(t, true, OutboxOptions{})
		ot.p.failNext("*x*", badFormat, badFormat)
		it := ot.queue("s1", chatA, "*x*")
		ot.expect("send", "*x*", 0)
		ot.advance(time.Second)
		ot.expect("sendPlain", "*x*", time.Second)
		if _, err := ot.result(it); !errors.Is(err, badFormat) {
			t.Fatalf("err = %v, want the format error", err)
		}
		if u := ot.nextUndelivered(); u.SessionID != "s1" || u.Attempts != 2 {
			t.Fatalf("undelivered %+v", u)
		}
	})
}

func TestOutboxTemporaryIsRetried(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	ot.p.caps.SendEvery = 100 * time.Millisecond
	ot.o.every = 100 * time.Millisecond
	reset := &SendError{Kind: Temporary, Message: "connection reset"}
	ot.p.failNext("m", reset, errors.New("read tcp: i/o timeout"))
	it := ot.queue("s1", chatA, "m")
	ot.expect("send", "m", 0)
	ot.advance(time.Second)
	ot.expect("send", "m", time.Second)
	ot.advance(time.Second)
	ot.advance(time.Second) // the second backoff is twice the first
	ot.expect("send", "m", 3*time.Second)
	if _, err := ot.result(it); err != nil {
		t.Fatal(err)
	}
}
