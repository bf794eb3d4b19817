package postgres

import (
	"errors"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// TestTextPostgresCannotHold: NUL bytes and invalid UTF-8, which tool
// output (a binary file read) and models produce and PostgreSQL's text
// cannot hold, never make a write fail; each is stored as U+FFFD, and the
// message stays searchable.
func TestTextPostgresCannotHold(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	for _, bad := range []string{"\x00", "\xff\xfe", "a\x00b\xc3"} {
		sess := &session.Session{Source: "cli", Title: "t" + bad, Cwd: "/tmp/" + bad, Agent: bad}
		if err := s.Create(ctx, sess); err != nil {
			t.Fatalf("Create with %q in its fields: %v", bad, err)
		}
		call := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Reasoning: "think" + bad,
			ToolCalls: []llm.ToolCall{{ID: "c" + bad, Name: "read_file", Arguments: `{"path":"` + bad + `"}`}}},
			FinishReason: "tool_calls" + bad}
		result := &session.Message{Message: llm.ToolResultMessage("c"+bad, "read_file"+bad, "gnarwhal output "+bad+" end")}
		if err := s.Append(ctx, sess.ID, call, result); err != nil {
			t.Fatalf("Append with %q in the messages: %v", bad, err)
		}
		if err := s.SetTitle(ctx, sess.ID, "title "+bad); err != nil {
			t.Errorf("SetTitle with %q: %v", bad, err)
		}
		if err := s.SetSystemPrompt(ctx, sess.ID, "prompt "+bad); err != nil {
			t.Errorf("SetSystemPrompt with %q: %v", bad, err)
		}
		if err := s.End(ctx, sess.ID, "done"+bad); err != nil {
			t.Errorf("End with %q: %v", bad, err)
		}
		if _, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: sess.ID, Holder: "h" + bad}); err != nil {
			t.Errorf("AcquireLease with %q in the holder: %v", bad, err)
		}
		msgs, err := s.Messages(ctx, sess.ID)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("Messages = %d, %v", len(msgs), err)
		}
		if n, err := s.Rewind(ctx, sess.ID, msgs[0].ID); err != nil || n != 1 {
			t.Errorf("Rewind = %d, %v; want 1", n, err)
		}
		if got, err := s.Get(ctx, sess.ID); err != nil || got.ToolCallCount != 1 {
			t.Errorf("Get after Rewind = %+v, %v; want 1 tool call", got, err)
		}
	}
	if err := s.Append(ctx, mustCreate(t, s), &session.Message{Message: llm.UserMessage("gnarwhal \x00\xff here")}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "gnarwhal", session.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Errorf("Search(gnarwhal) = %+v, %v; want the one message left", hits, err)
	}
}

// TestLookupsOfTextPostgresCannotHold: an id or filter holding NUL or
// invalid UTF-8 (typed into a URL or a command) finds nothing, as any
// unknown id does, instead of failing with the server's encoding error.
func TestLookupsOfTextPostgresCannotHold(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	for _, id := range []string{"\x00", "x\xff"} {
		if _, err := s.Get(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.Messages(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Messages(%q): %v, want ErrNotFound", id, err)
		}
		if err := s.Append(ctx, id, &session.Message{Message: llm.UserMessage("x")}); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Append(%q): %v, want ErrNotFound", id, err)
		}
		if err := s.AddUsage(ctx, id, session.Usage{InputTokens: 1}); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("AddUsage(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.Rewind(ctx, id, 0); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Rewind(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.SystemPrompt(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("SystemPrompt(%q): %v, want ErrNotFound", id, err)
		}
		if err := s.Delete(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q): %v, want ErrNotFound", id, err)
		}
		if _, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: id, Holder: "h"}); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("AcquireLease(%q): %v, want ErrNotFound", id, err)
		}
		if err := s.ReleaseLease(ctx, id, "h"); err != nil {
			t.Errorf("ReleaseLease(%q): %v", id, err)
		}
		if _, err := s.Latest(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Latest(%q): %v, want ErrNotFound", id, err)
		}
		if list, err := s.List(ctx, session.ListOptions{Source: id, User: id}); err != nil || len(list) != 0 {
			t.Errorf("List(%q) = %v, %v", id, list, err)
		}
		if hits, err := s.Search(ctx, "x", session.SearchOptions{SessionID: id, Source: id}); err != nil || len(hits) != 0 {
			t.Errorf("Search in %q = %v, %v", id, hits, err)
		}
		if rows, err := s.DailyUsage(ctx, session.UsageQuery{User: id, From: id}); err != nil || len(rows) != 0 {
			t.Errorf("DailyUsage(%q) = %v, %v", id, rows, err)
		}
	}
}
