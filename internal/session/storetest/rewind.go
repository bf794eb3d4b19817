package storetest

import (
	"testing"

	"github.com/hermes-go/hermes/internal/session"
)

// testRewind holds Rewind to its contract: the messages after the id go,
// from the session, its counts and both search indexes, and nothing else
// does; the token totals stay.
func testRewind(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{Source: "cli"})
	other := create(t, s, session.Session{Source: "cli"})
	first, answer := userMsg("first question"), assistantMsg("first answer")
	appendMsgs(t, s, sess.ID, first, answer)
	appendMsgs(t, s, other.ID, userMsg("quokka in another session"))
	if err := s.AddUsage(ctx(t), sess.ID, session.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.5}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	appendMsgs(t, s, sess.ID, userMsg("quokka 袋鼠 question"),
		callMsg("c1", "terminal", `{"command":"ls"}`, "c2", "read_file", `{"path":"x"}`),
		resultMsg("c1", "terminal", "quokka listing"), resultMsg("c2", "read_file", "text"),
		assistantMsg("quokka answer"))

	n, err := s.Rewind(ctx(t), sess.ID, answer.ID)
	if err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	if n != 5 {
		t.Errorf("Rewind removed %d messages, want 5", n)
	}
	msgs := messages(t, s, sess.ID)
	if len(msgs) != 2 || msgs[0].ID != first.ID || msgs[1].ID != answer.ID {
		t.Fatalf("messages after Rewind = %+v, want the first exchange only", msgs)
	}
	got := get(t, s, sess.ID)
	if got.MessageCount != 2 || got.ToolCallCount != 0 {
		t.Errorf("counts after Rewind = %d messages, %d tool calls; want 2, 0", got.MessageCount, got.ToolCallCount)
	}
	if got.InputTokens != 100 || got.OutputTokens != 10 || got.CostUSD != 0.5 {
		t.Errorf("totals after Rewind = %+v; the calls made stay counted", got)
	}
	for _, q := range []string{"quokka", "袋鼠", "uokk"} {
		for _, h := range search(t, s, q, session.SearchOptions{}) {
			if h.SessionID == sess.ID {
				t.Errorf("Search(%q) still finds a rewound message: %+v", q, h)
			}
		}
	}
	if hits := search(t, s, "quokka", session.SearchOptions{}); len(hits) != 1 || hits[0].SessionID != other.ID {
		t.Errorf("Search(quokka) after Rewind = %+v, want the other session's message only", hits)
	}

	// Messages appended after a rewind are new ones, counted and found.
	appendMsgs(t, s, sess.ID, userMsg("wombat again"))
	if got := get(t, s, sess.ID); got.MessageCount != 3 {
		t.Errorf("message count after Rewind and Append = %d, want 3", got.MessageCount)
	}
	if hits := search(t, s, "wombat", session.SearchOptions{}); len(hits) != 1 {
		t.Errorf("Search(wombat) after Rewind and Append = %+v, want one hit", hits)
	}

	if n, err := s.Rewind(ctx(t), sess.ID, 1<<60); err != nil || n != 0 {
		t.Errorf("Rewind past the last message = %d, %v; want 0, nil", n, err)
	}
	if n, err := s.Rewind(ctx(t), sess.ID, 0); err != nil || n != 3 {
		t.Errorf("Rewind(0) = %d, %v; want 3, nil", n, err)
	}
	if got := get(t, s, sess.ID); got.MessageCount != 0 {
		t.Errorf("message count after Rewind(0) = %d, want 0", got.MessageCount)
	}
	_, err = s.Rewind(ctx(t), "no-such-session", 0)
	wantNotFound(t, "Rewind of an unknown session", err)
}
