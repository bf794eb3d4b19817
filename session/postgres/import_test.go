package postgres

import (
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// TestImport: a session imported keeps its id, times, totals, system
// prompt and message ids; importing it again changes nothing; a child
// imported before its parent is linked afterwards; and a message
// appended after the import gets an id past every imported one.
func TestImport(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	at := time.Date(2025, 5, 1, 8, 0, 0, 0, time.UTC)
	parent := session.Session{ID: "p1", Source: "cli", Title: "部署", StartedAt: at, MessageCount: 2, ToolCallCount: 1,
		InputTokens: 10, OutputTokens: 5, CostUSD: 0.25, User: "bob"}
	child := session.Session{ID: "c1", Source: "cli", ParentID: "p1", StartedAt: at.Add(time.Hour), MessageCount: 1}
	call := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "terminal", Arguments: `{"command":"ls"}`}}}
	msgs := []session.Message{
		{ID: 40, Message: llm.UserMessage("deploy the 数据库 \x00 now"), CreatedAt: at},
		{ID: 41, Message: call, CreatedAt: at.Add(time.Second)},
	}
	if ok, err := s.Import(ctx, child, "", []session.Message{{ID: 90, Message: llm.UserMessage("later"), CreatedAt: at.Add(time.Hour)}}); err != nil || !ok {
		t.Fatalf("Import(child) = %v, %v", ok, err)
	}
	if ok, err := s.Import(ctx, parent, "you are hermes", msgs); err != nil || !ok {
		t.Fatalf("Import(parent) = %v, %v", ok, err)
	}
	if ok, err := s.Import(ctx, parent, "you are hermes", msgs); err != nil || ok {
		t.Fatalf("Import(parent) again = %v, %v; want false, nil", ok, err)
	}
	if err := s.LinkParent(ctx, "c1", "p1"); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishImport(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "部署" || !got.StartedAt.Equal(at) || got.MessageCount != 2 || got.ToolCallCount != 1 || got.InputTokens != 10 || got.CostUSD != 0.25 || got.User != "bob" {
		t.Errorf("imported session = %+v", got)
	}
	if p, _ := s.SystemPrompt(ctx, "p1"); p != "you are hermes" {
		t.Errorf("system prompt = %q", p)
	}
	if c, _ := s.Get(ctx, "c1"); c == nil || c.ParentID != "p1" {
		t.Errorf("child = %+v, want its parent linked", c)
	}
	stored, err := s.Messages(ctx, "p1")
	if err != nil || len(stored) != 2 || stored[0].ID != 40 || stored[1].ID != 41 || len(stored[1].ToolCalls) != 1 {
		t.Fatalf("messages = %+v, %v", stored, err)
	}
	if hits, err := s.Search(ctx, "数据库", session.SearchOptions{}); err != nil || len(hits) != 1 || hits[0].MessageID != 40 {
		t.Errorf("search of an imported message = %+v, %v", hits, err)
	}
	next := &session.Message{Message: llm.UserMessage("after")}
	if err := s.Append(ctx, "p1", next); err != nil {
		t.Fatal(err)
	}
	if next.ID <= 90 {
		t.Errorf("a message appended after the import got id %d, not past the imported 90", next.ID)
	}
}
