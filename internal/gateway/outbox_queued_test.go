package gateway

import (
	"testing"
	"time"
)

// TestOutboxQueued counts what waits behind a chat's pace: three sends
// to one chat, the first sent at once, the others held by SendEvery.
func TestOutboxQueued(t *testing.T) {
	ot := newOutboxTest(t, false, OutboxOptions{})
	if n := ot.o.Queued(); n != 0 {
		t.Fatalf("Queued = %d on an empty outbox", n)
	}
	first := ot.queue("s1", chatA, "one")
	ot.queue("s1", chatA, "two")
	ot.queue("s1", chatA, "three")
	ot.expect("send", "one", 0)
	if _, err := ot.result(first); err != nil {
		t.Fatal(err)
	}
	if n := ot.o.Queued(); n != 2 {
		t.Errorf("Queued = %d, want the 2 held by the pace", n)
	}
	ot.advance(time.Second)
	ot.expect("send", "two", time.Second)
	ot.advance(time.Second)
	ot.expect("send", "three", 2*time.Second)
}
