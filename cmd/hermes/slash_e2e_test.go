package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// The chat's slash commands come from the one registry the chat
// platforms use: /help lists the terminal's, /skills the skills, a skill
// runs as /<name>, and a message that only starts with a path is sent to
// the model, not taken for a command.
func TestChatSlashCommands(t *testing.T) {
	h := newHome(t)
	if err := os.MkdirAll(filepath.Join(h.dir, "skills", "tidy"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("skills/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidy the downloads folder.\n---\nMove old files to ~/archive.\n")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "tidied"}, llmtest.Reply{Text: "the hosts file looks fine"})
	out := h.chatScript(srv, "", "/help\n/skills\n/TIDY only pdfs\n/etc/hosts has a typo?\n/approve\n/exit\n")
	for _, want := range []string{
		"  /new  ", "start a new session", "  /exit  ", "/tidy [instruction] — Tidy the downloads folder.",
		"tidied", "the hosts file looks fine", "/approve is not a command or a skill here",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat did not print %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "/whoami —") {
		t.Errorf("/help in the terminal lists the chat platforms' /whoami:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (the skill and the question)", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1].Text(); !strings.Contains(last, "Move old files") || !strings.Contains(last, "only pdfs") {
		t.Errorf("the skill's message: %q", last)
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1].Text(); !strings.Contains(last, "/etc/hosts has a typo?") {
		t.Errorf("the path message reached the model as %q", last)
	}
}
