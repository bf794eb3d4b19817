package engine

import (
	"context"
	"errors"
	"testing"
)

// A turn of this process holding (or waiting for) a session's lock makes
// a delete of it fail at once with a *BusyError; the lock is the turn's
// again afterwards.
func TestDeleteSessionRefusesWhileATurnHoldsTheLock(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	unlock, err := e.lock(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if err := e.DeleteSession(ctx, "s1"); !errors.As(err, &busy) || busy.SessionID != "s1" {
		t.Fatalf("delete during a turn: %v, want a BusyError", err)
	}
	unlock()
	if n := len(e.locks); n != 0 {
		t.Errorf("%d session locks remain", n)
	}
	release, ok := e.tryLock("s1")
	if !ok {
		t.Fatal("the lock was not free after the turn")
	}
	if _, ok := e.tryLock("s1"); ok {
		t.Error("the lock was taken twice")
	}
	release()
	again, err := e.lock(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	again()
	if n := len(e.locks); n != 0 {
		t.Errorf("%d session locks remain after every holder let go", n)
	}
}
