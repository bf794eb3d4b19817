package gwstore

import (
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

func TestHeldMessagesOutliveTheProcess(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		a, err := s.Hold(ctx, "telegram", "101", []byte(`{"text":"first"}`), false)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		b, err := s.Hold(ctx, "telegram", "102", []byte(`{"text":"second"}`), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(ctx, a); err != nil {
			t.Fatal(err)
		}
		// Another process opening the file (hermes restarted) finds both,
		// oldest first, the first one marked started.
		held, err := storeAt(t, x, clk).HeldMessages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(held) != 2 || held[0].ID != a || held[1].ID != b {
			t.Fatalf("held = %+v, want ids %d, %d", held, a, b)
		}
		if held[0].Started.IsZero() || !held[1].Started.IsZero() {
			t.Errorf("started = %v, %v; want only the first set", held[0].Started, held[1].Started)
		}
		if string(held[1].Event) != `{"text":"second"}` || held[1].Platform != "telegram" || held[1].EventID != "102" {
			t.Errorf("second = %+v", held[1])
		}
		if !held[1].Received.Equal(t0.Add(time.Second)) {
			t.Errorf("received = %v, want %v", held[1].Received, t0.Add(time.Second))
		}
		if err := s.Release(ctx, a); err != nil {
			t.Fatal(err)
		}
		held, err = s.HeldMessages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(held) != 1 || held[0].ID != b {
			t.Fatalf("after release: %+v, want only %d", held, b)
		}
		// A message whose turn starts at once is held as started.
		c, err := s.Hold(ctx, "telegram", "103", []byte(`{}`), true)
		if err != nil {
			t.Fatal(err)
		}
		held, _ = s.HeldMessages(ctx)
		if len(held) != 2 || held[1].ID != c || held[1].Started.IsZero() {
			t.Errorf("held %+v; want %d started", held, c)
		}
	})
}

func TestChatModel(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		key := "agent:main:telegram:dm:1"
		steps := []struct{ set, want string }{
			{"", ""},
			{"gpt-4o", "gpt-4o"},
			{"claude-sonnet-4", "claude-sonnet-4"},
			{"", ""},
		}
		for _, st := range steps {
			if err := s.SetChatModel(ctx, key, st.set); err != nil {
				t.Fatal(err)
			}
			got, err := s.ChatModel(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if got != st.want {
				t.Errorf("after SetChatModel(%q): %q, want %q", st.set, got, st.want)
			}
		}
		if other, _ := s.ChatModel(ctx, "agent:main:telegram:dm:2"); other != "" {
			t.Errorf("another chat's model = %q, want none", other)
		}
		// /new forgets the session, not the model.
		if err := s.SetChatModel(ctx, key, "m1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Forget(ctx, key); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.ChatModel(ctx, key); got != "m1" {
			t.Errorf("after Forget: %q, want m1", got)
		}
		if err := s.SetChatModel(ctx, "", "m"); err == nil {
			t.Error("an empty key was accepted")
		}
	})
}
