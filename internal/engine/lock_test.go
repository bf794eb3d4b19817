package engine

import (
	"context"
	"errors"
	"testing"
)

func TestTurnLocksAreReleased(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	unlock, err := e.lock(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	// A second turn waits; when its context ends it gives up.
	waiting, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.lock(waiting, "s1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiting turn whose context ended got %v", err)
	}
	unlock()
	again, err := e.lock(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	again()
	if n := len(e.locks); n != 0 {
		t.Errorf("%d session locks remain after every turn ended; the map would grow forever", n)
	}
}
