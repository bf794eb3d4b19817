package gwstore

import (
	"sync"
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

// TestAdoptOnlyWhatTheDeadHeld: of replicas sharing the database, one
// adopts only the held messages of holders that are gone (or of none,
// held before holders were kept), never a live one's nor its own; and
// of replicas adopting at once, each message goes to exactly one.
func TestAdoptOnlyWhatTheDeadHeld(t *testing.T) {
	each(t, func(t *testing.T, _ *Store, clk *clock.Fake, x dbtest.Target) {
		replica := func(holder string) *Store { return New(x.Open(t), Options{Clock: clk, Holder: holder}) }
		a, dead := replica("host/1"), replica("host/2")
		hold := func(s *Store, ev string) {
			t.Helper()
			if _, err := s.Hold(t.Context(), "telegram", ev, []byte(ev), false); err != nil {
				t.Fatal(err)
			}
		}
		hold(a, "a-1")
		hold(dead, "d-1")
		hold(dead, "d-2")
		hold(replica(""), "old-1")
		// host/2 is gone; the adopters are alive, as they are on the
		// roll of replicas.
		alive := func(h string) bool { return h != "host/2" && h != "" }
		adopters := []*Store{replica("host/3"), replica("host/4"), replica("host/5")}
		got := make([][]Held, len(adopters))
		var wg sync.WaitGroup
		for i, s := range adopters {
			wg.Go(func() {
				var err error
				if got[i], err = s.Adopt(t.Context(), alive); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		taken := map[string]string{}
		for i, hs := range got {
			for _, h := range hs {
				if prev, ok := taken[h.EventID]; ok {
					t.Errorf("%s adopted by %s and %s", h.EventID, prev, adopters[i].holder)
				}
				taken[h.EventID] = adopters[i].holder
				if h.Holder != adopters[i].holder {
					t.Errorf("%s adopted by %s says it is held by %s", h.EventID, adopters[i].holder, h.Holder)
				}
			}
		}
		if len(taken) != 3 || taken["a-1"] != "" || taken["d-1"] == "" || taken["d-2"] == "" || taken["old-1"] == "" {
			t.Errorf("adopted %v, want d-1, d-2 and old-1, each once, and never the live a-1", taken)
		}
		if again, err := a.Adopt(t.Context(), alive); err != nil || len(again) != 0 {
			t.Errorf("adopting again adopted %+v, %v; want nothing, every message being held by a live replica", again, err)
		}
	})
}

// TestTakeMarksAndHoldsTogether checks that Take records the event as
// seen and holds its message in one step: a second Take of the same
// event (a redelivery, on any replica) holds nothing, and a message
// whose taker died is found held, never only marked seen.
func TestTakeMarksAndHoldsTogether(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		id, first, err := s.Take(ctx, "telegram", "201", []byte(`{"text":"hi"}`), time.Hour)
		if err != nil || !first || id == 0 {
			t.Fatalf("Take = %d, %v, %v; want a hold", id, first, err)
		}
		other := storeAt(t, x, clk)
		again, first, err := other.Take(ctx, "telegram", "201", []byte(`{"text":"hi"}`), time.Hour)
		if err != nil || first || again != 0 {
			t.Fatalf("a redelivery: Take = %d, %v, %v; want nothing held", again, first, err)
		}
		if seen, err := other.Seen(ctx, "telegram", "201", time.Hour); err != nil || seen {
			t.Errorf("Seen after Take = %v, %v; want the event known", seen, err)
		}
		held, err := other.HeldMessages(ctx)
		if err != nil || len(held) != 1 || held[0].ID != id || !held[0].Started.IsZero() || string(held[0].Event) != `{"text":"hi"}` {
			t.Fatalf("held = %+v, %v; want the one message, not started", held, err)
		}
		if _, _, err := s.Take(ctx, "telegram", "", nil, time.Hour); err == nil {
			t.Error("Take accepted an empty event id")
		}
	})
}
