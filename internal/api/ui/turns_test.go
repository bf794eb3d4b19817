package ui

import (
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// TestTurnsOfSplitsAtTheUsersMessages checks the turns read from stored
// messages: a turn per user message, the images tools returned kept in
// their turn, each call's duration and status, and a call without a
// result lost when the turn ended, running while it runs.
func TestTurnsOfSplitsAtTheUsersMessages(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	text := func(role llm.Role, s string) llm.Message {
		return llm.Message{Role: role, Content: []llm.Part{llm.TextPart(s)}}
	}
	msgs := []session.Message{
		{Message: text(llm.RoleUser, "take a screenshot"), CreatedAt: at(0)},
		{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "browser_screenshot"}, {ID: "b", Name: "terminal"}}}, CreatedAt: at(1)},
		{Message: llm.ToolResultMessage("a", "browser_screenshot", `{"status":"ok"}`), CreatedAt: at(4)},
		{Message: llm.ToolResultMessage("b", "terminal", `{"status":"error","message":"exit 1"}`), CreatedAt: at(6)},
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("[images returned by browser_screenshot]"), llm.ImagePart("data:image/png;base64,AA")}}, CreatedAt: at(6)},
		{Message: text(llm.RoleAssistant, "here it is"), CreatedAt: at(8)},
		{Message: text(llm.RoleUser, "now run it again"), CreatedAt: at(20)},
		{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "terminal"}}}, CreatedAt: at(21)},
	}
	s := session.Session{ID: "s", Source: "cli", User: "ann"}
	id := func(s string) string { return s }
	for _, live := range []bool{false, true} {
		ts := turnsOf(s, msgs, live, at(30), id)
		if len(ts) != 2 {
			t.Fatalf("live %v: %d turns, want 2: %+v", live, len(ts), ts)
		}
		first, second := ts[0], ts[1]
		if first.Prompt != "take a screenshot" || first.Took() != 8*time.Second || len(first.Calls) != 2 || first.User != "ann" {
			t.Errorf("live %v: first turn = %+v", live, first)
		}
		if c := first.Calls[0]; c.Status != "ok" || c.Took != 3*time.Second {
			t.Errorf("live %v: screenshot call = %+v", live, c)
		}
		if c := first.Calls[1]; c.Status != "error" || c.Took != 5*time.Second {
			t.Errorf("live %v: terminal call = %+v", live, c)
		}
		want, took := statusLost, time.Duration(0)
		if live {
			want, took = statusRunning, 9*time.Second
		}
		if c := second.Calls[0]; c.Status != want || c.Took != took || second.Running != live {
			t.Errorf("live %v: the last call = %+v (turn running %v), want %s for %s", live, c, second.Running, want, took)
		}
		if len(first.Bars) != 2 || first.Bars[0].X != "75.0" || first.Bars[1].W != "375.0" {
			t.Errorf("live %v: the timeline = %+v", live, first.Bars)
		}
	}
}
