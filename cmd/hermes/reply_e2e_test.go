package main

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A model that answers with nothing, again and again, has not answered:
// the turn is an error, not "done".
func TestChatEmptyRepliesAreAnError(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "agent: {api_max_retries: 2, api_retry_base_delay: 1ms}\n")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{}, llmtest.Reply{}, llmtest.Reply{})
	r := h.run([]string{"chat", "--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1",
		"--model", "test-model", "--api-key", "sk-test-123456", "-q", "hello?"})
	if r.code != 1 || !strings.Contains(r.stderr, "empty reply 3 times in a row") {
		t.Errorf("exit %d, stderr %q; want 1 and a message saying the model answered nothing 3 times", r.code, r.stderr)
	}

	srv.Enqueue(llmtest.Reply{}, llmtest.Reply{}, llmtest.Reply{})
	var out struct {
		chatResult
		Error string `json:"error"`
	}
	r = h.hermes("chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-test-123456", "--json", "-q", "hello?")
	r.decode(t, &out)
	if r.code != 1 || out.Stopped != "error" || !strings.Contains(out.Error, "empty reply") {
		t.Errorf("--json: exit %d, %+v", r.code, out)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Errorf("the model was asked %d times, want 3 per turn", n)
	}
}
