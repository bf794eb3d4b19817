package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// The terminal's commands: /help grouped by category, /model listing the
// provider's models and switching by number, /title, /tools, /memory,
// /yolo, /export, and /resume listing the sessions and continuing one.
func TestChatCommands(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.SetModels("test-model", "big-model", "small-model")
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer from " + r.Model} })
	out := h.chatScript(srv, work, strings.Join([]string{
		"/help", "first question", "/model", "/model 3", "second question",
		"/title Quarterly numbers", "/title", "/tools", "/memory", "/yolo", "/yolo",
		"/export", "/new", "third question", "/resume", "/resume 2", "/model 9", "/exit",
	}, "\n")+"\n")
	for _, want := range []string{
		"Session\n  /new", "Model and tools\n", "  /model [number|name]", "Anything else is sent to hermes.",
		"answer from test-model", "3. small-model", "model: small-model for this chat's next turns", "answer from small-model",
		"title set", "title: Quarterly numbers", "terminal", "MEMORY (", "yolo: dangerous commands run without asking", "yolo off",
		"exported 4 messages to ", "continuing session ", "Quarterly numbers", "/model: 9 is not in the list (1-3)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat did not print %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\*  1\. .*third question`).MatchString(out) {
		t.Errorf("/resume does not list the newest session first, marked as the current one:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(work, "*.md"))
	if len(files) != 1 {
		t.Fatalf("exported files: %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "second question") {
		t.Errorf("the export lacks the conversation:\n%s", b)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Model; got != "small-model" {
		t.Errorf("the third question went to %q; the chat's model switch should hold across /new", got)
	}
}
