package gwstore

import (
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// A cursor never saved reads as "", a saved one is read back by another
// process, and each platform's cursors are its own.
func TestCursorSavedAcrossProcesses(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		if v, err := s.Cursor(ctx, "matrix", "since"); err != nil || v != "" {
			t.Fatalf("unsaved cursor = %q, %v; want \"\"", v, err)
		}
		if err := s.SaveCursor(ctx, "matrix", "since", "s1_2"); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveCursor(ctx, "matrix", "since", "s3_4"); err != nil {
			t.Fatal(err)
		}
		other := storeAt(t, x, clk)
		if v, err := other.Cursor(ctx, "matrix", "since"); err != nil || v != "s3_4" {
			t.Errorf("cursor read by another process = %q, %v; want the last saved, s3_4", v, err)
		}
		if v, _ := other.Cursor(ctx, "email", "since"); v != "" {
			t.Errorf("another platform's cursor = %q; want \"\"", v)
		}
	})
}
