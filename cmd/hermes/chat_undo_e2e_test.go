package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// userTexts are the texts of a request's user messages.
func userTexts(r llmtest.Request) []string {
	var texts []string
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			texts = append(texts, m.Text())
		}
	}
	return texts
}

// /undo takes the last exchange out of the session, so the next request
// no longer holds it; /retry takes back the last answer and sends the
// same message again; both say so when there is nothing to take back.
func TestChatUndoAndRetry(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	var n atomic.Int32
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: fmt.Sprintf("answer %d to %s", n.Add(1), r.LastUserText())}
	})
	out := h.chatScript(srv, "", strings.Join([]string{
		"/undo", "/retry", "first question", "leaked secret plan", "/undo", "second question", "/retry",
		"/undo", "/undo", "/undo", "/exit",
	}, "\n")+"\n")
	for _, want := range []string{
		"/undo: nothing to undo yet", "/retry: nothing to undo yet",
		`undone: your message "leaked secret plan" and the 1 messages after it`,
		"retrying: second question", "answer 4 to second question",
		"/undo: nothing to undo: session ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat did not print %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4 (two questions, the undone one, the retry)", len(reqs))
	}
	for i, r := range reqs[2:] {
		for _, m := range r.Messages {
			if strings.Contains(m.Text(), "leaked secret plan") {
				t.Errorf("request %d after /undo still holds the undone exchange: %q", i+3, m.Text())
			}
		}
	}
	if got := userTexts(reqs[3]); len(got) != 2 || got[0] != "first question" || got[1] != "second question" {
		t.Errorf("the retried request's user messages = %q, want the first and the second question once", got)
	}
	for _, m := range reqs[3].Messages {
		if strings.Contains(m.Text(), "answer 3") {
			t.Errorf("the retried request still holds the answer it replaces: %q", m.Text())
		}
	}
	list := h.hermes("sessions", "list", "--json")
	if !strings.Contains(list.stdout, `"message_count":0`) || strings.Contains(list.stdout, "first question") {
		t.Errorf("after undoing every exchange the session still counts messages, or is titled by the first:\n%s", list.stdout)
	}
}
