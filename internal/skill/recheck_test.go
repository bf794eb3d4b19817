package skill

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// TestRecheck checks that with Recheck a skill written by hand shows
// once the interval has passed, not before, while the library's own
// writes show at once.
func TestRecheck(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "a", "one", doc("one", "First."))
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	lib := Open(Options{Dir: dir, Platform: "linux", Recheck: time.Second, Clock: clk,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if n := len(lib.Skills()); n != 1 {
		t.Fatalf("%d skills, want 1", n)
	}
	writeSkill(t, dir, "a", "two", doc("two", "Second."))
	if _, ok := lib.Get("two"); ok {
		t.Error("a skill written by hand was seen before the directories were looked at again")
	}
	clk.Advance(time.Second)
	if _, ok := lib.Get("two"); !ok {
		t.Error("a skill written by hand is not seen after Recheck")
	}
	if _, err := lib.Create(context.Background(), "three", "a", doc("three", "Third.")); err != nil {
		t.Fatal(err)
	}
	if _, ok := lib.Get("three"); !ok {
		t.Error("the library's own write is not seen at once")
	}
}
