package gwstore

import (
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestChatAgent binds a chat to agents and back; another chat is not
// bound, and /new (Forget) keeps the binding.
func TestChatAgent(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		ctx := t.Context()
		key := "agent:main:telegram:dm:1"
		for _, set := range []string{"", "analyst", "writer", ""} {
			if err := s.SetChatAgent(ctx, key, set); err != nil {
				t.Fatal(err)
			}
			if got, err := s.ChatAgent(ctx, key); err != nil || got != set {
				t.Errorf("after SetChatAgent(%q): %q, %v", set, got, err)
			}
		}
		if err := s.SetChatAgent(ctx, key, "analyst"); err != nil {
			t.Fatal(err)
		}
		if other, _ := s.ChatAgent(ctx, "agent:main:telegram:dm:2"); other != "" {
			t.Errorf("another chat's agent = %q, want none", other)
		}
		if err := s.Forget(ctx, key); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.ChatAgent(ctx, key); got != "analyst" {
			t.Errorf("after Forget: %q, want analyst", got)
		}
	})
}
