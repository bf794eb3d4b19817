package session_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

func exportFixture() (*session.Session, []session.Message) {
	s := &session.Session{ID: "20261203_090000_abc123", Source: "cli", Model: "m", Title: "Deploy", StartedAt: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)}
	call := llm.ToolCall{ID: "c1", Name: "terminal", Arguments: `{"command":"cat notes.md"}`}
	msgs := []session.Message{
		{Message: llm.UserMessage("show the notes")},
		{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}},
		{Message: llm.ToolResultMessage("c1", "terminal", "```go\nfmt.Println()\n```")},
		{Message: llm.AssistantMessage("Here they are.")},
	}
	return s, msgs
}

func TestWriteJSONL(t *testing.T) {
	s, msgs := exportFixture()
	var buf bytes.Buffer
	if err := session.WriteJSONL(&buf, s, msgs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1+len(msgs) {
		t.Fatalf("%d lines, want the session and %d messages:\n%s", len(lines), len(msgs), buf.String())
	}
	var head struct{ Session session.Session }
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil || head.Session.ID != s.ID {
		t.Errorf("first line = %s (%v), want the session record", lines[0], err)
	}
	var last session.Message
	if err := json.Unmarshal([]byte(lines[4]), &last); err != nil || last.Text() != "Here they are." {
		t.Errorf("last line = %s (%v)", lines[4], err)
	}
}

// TestWriteMarkdownFences: a result that holds a code fence is put in a
// longer one, so the transcript's structure survives it.
func TestWriteMarkdownFences(t *testing.T) {
	s, msgs := exportFixture()
	var buf bytes.Buffer
	if err := session.WriteMarkdown(&buf, s, msgs); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"# Deploy\n", "- id: 20261203_090000_abc123", "## User\n\nshow the notes", "→ `terminal`", "````\n```go\nfmt.Println()\n```\n````", "## hermes\n\nHere they are."} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
}
