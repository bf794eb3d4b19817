package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestChatCompressesLongSession runs a tool-heavy chat in a small context
// window: the conversation is compressed on its own and by /compress,
// continues in child sessions, and the old turns stay searchable.
func TestChatCompressesLongSession(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "model: {context_length: 40000, max_tokens: 1000}\n")
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), "handoff summaries") {
			return llmtest.Reply{Text: "## Goal\nClean every host.\n## Constraints & Preferences\n-\n## Progress\n### Done\n- early hosts\n### In Progress\n- the current host\n### Blocked\n-\n## Key Decisions\n-\n## Relevant Files\n-\n## Next Steps\n-\n## Critical Context\n-"}
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleUser {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("printf '%012000d' 0")}}
		}
		return llmtest.Reply{Text: "Done with that host."}
	})
	var script strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&script, "clean host-%d please\n", i)
	}
	script.WriteString("/compress the cleanup\n/exit\n")
	text := h.chatScript(srv, t.TempDir(), script.String(), "--yolo")
	if v := srv.Violations(); len(v) > 0 {
		t.Fatalf("protocol violations: %v", v)
	}
	if !strings.Contains(text, "⇣ compressed the conversation") {
		t.Errorf("the chat never compressed on its own:\n%s", text)
	}
	if !strings.Contains(text, "compressed ~") || !strings.Contains(text, "continuing in session") {
		t.Errorf("/compress did not report:\n%s", text)
	}
	var list []struct {
		ID       string `json:"id"`
		ParentID string `json:"parent_session_id"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	children := 0
	for _, s := range list {
		if s.ParentID != "" {
			children++
		}
	}
	if children < 2 {
		t.Errorf("sessions %+v: want at least two compressed children", list)
	}
	// The listing shows the children under their parent, indented.
	shown := h.hermes("sessions", "list").stdout
	for _, s := range list {
		if s.ParentID != "" && (!strings.Contains(shown, "└ "+s.ID) || strings.Index(shown, s.ParentID) > strings.Index(shown, s.ID)) {
			t.Errorf("session %s is not shown under its parent %s:\n%s", s.ID, s.ParentID, shown)
		}
	}
	if r := h.hermes("sessions", "search", "host-1"); !strings.Contains(r.stdout, "host-1") {
		t.Errorf("the first turns are not searchable after compression:\n%s", r.stdout)
	}
}

// TestResumeFollowsLineage: --resume with a session that was compressed
// continues its newest continuation.
func TestResumeFollowsLineage(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "model: {context_length: 40000, max_tokens: 1000}\n")
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), "handoff summaries") {
			return llmtest.Reply{Text: "## Goal\nNotes.\n## Constraints & Preferences\n-\n## Progress\n### Done\n-\n### In Progress\n-\n### Blocked\n-\n## Key Decisions\n-\n## Relevant Files\n-\n## Next Steps\n-\n## Critical Context\n-"}
		}
		return llmtest.Reply{Text: strings.Repeat("a long answer ", 600)}
	})
	out := h.chatScript(srv, "", "one\ntwo\nthree\nfour\n/compress\n/exit\n")
	if !strings.Contains(out, "continuing in session") {
		t.Fatalf("no compression:\n%s", out)
	}
	var list []struct {
		ID       string `json:"id"`
		ParentID string `json:"parent_session_id"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	var parent, child string
	for _, s := range list {
		if s.ParentID != "" {
			parent, child = s.ParentID, s.ID
		}
	}
	if parent == "" {
		t.Fatalf("no child session: %+v", list)
	}
	_, r := h.chatIn(srv, t.TempDir(), "and now?", "--resume", parent)
	if !strings.Contains(r.stderr, "continuing in "+child) {
		t.Errorf("--resume %s did not say it continues in %s:\n%s", parent, child, r.stderr)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if !strings.Contains(string(last.Body), "Context summary") {
		t.Error("the resumed turn did not carry the compressed conversation")
	}
}
