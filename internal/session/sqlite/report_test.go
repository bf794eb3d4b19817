package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

func TestRunningListsHeldLeases(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, id := range []string{"live", "stale", "idle"} {
		if err := s.Create(ctx, &session.Session{ID: id, Source: "cli"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: "live", Holder: "h/1", Now: now, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcquireLease(ctx, session.LeaseRequest{SessionID: "stale", Holder: "h/2", Now: now.Add(-time.Hour), TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Running(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SessionID != "live" || got[0].Holder != "h/1" {
		t.Fatalf("running = %+v, want only session live held by h/1", got)
	}
}

func TestLastMessagesAreTheNewestInOrder(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, id := range []string{"a", "b"} {
		if err := s.Create(ctx, &session.Session{ID: id, Source: "cli"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		for _, id := range []string{"a", "b"} {
			m := &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(fmt.Sprintf("%s%d", id, i))}}}
			if err := s.Append(ctx, id, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := s.LastMessages(ctx, "a", 3)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range got {
		texts = append(texts, m.Text())
	}
	if strings.Join(texts, " ") != "a7 a8 a9" {
		t.Fatalf("last 3 of a = %v, want a7 a8 a9", texts)
	}
	if got, err := s.LastMessages(ctx, "a", 50); err != nil || len(got) != 10 {
		t.Fatalf("last 50 of a = %d messages, %v; want all 10", len(got), err)
	}
}
