package main

import (
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/engine"
)

// undo answers /undo: the session's last exchange (the last message sent
// and everything after it) is taken back, so the next turn goes on as if
// it had never been. It returns the message taken back, "" when nothing
// was.
func (s *replState) undo(name string) string {
	if s.id == "" {
		fmt.Fprintf(s.out, "/%s: nothing to undo yet; this chat has not sent a message\n", name)
		return ""
	}
	u, err := s.h.Engine.Undo(s.base, s.id)
	if errors.Is(err, engine.ErrNothingToUndo) {
		fmt.Fprintf(s.out, "/%s: %v\n", name, err)
		return ""
	}
	if err != nil {
		fmt.Fprintf(s.out, "/%s: %v\n", name, err)
		return ""
	}
	// The message as this chat sent it, before the engine added what it
	// recalled; after a /resume only the stored one is known.
	text := u.Text
	if s.lastSent != "" {
		text = s.lastSent
	}
	s.lastSent = ""
	if name == "undo" {
		fmt.Fprintf(s.out, "undone: your message \"%s\" and the %d messages after it are gone from session %s\n", oneLine(u.Text, 60), u.Removed-1, s.id)
	}
	return text
}

// retry answers /retry: the last exchange is taken back and its message
// becomes the chat's next one.
func (s *replState) retry() {
	if text := s.undo("retry"); text != "" {
		s.pending = text
		fmt.Fprintf(s.out, "retrying: %s\n", oneLine(text, 60))
	}
}
