package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// A chat on a platform feeds long-term memory when it is reset: /new
// closes the chat's session, its lasting facts are extracted, and the
// next session's first message recalls them.
func TestGatewayNewFeedsLongTermMemory(t *testing.T) {
	h, srv, extractions := rememberingHome(t, func(last string) string { return "Noted: " + last }, func(string) string {
		return oneFact("fact", "staging server", "The user's staging server is staging-2.")
	})
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
gateway:
  telegram: {token: "%s", base_url: "%s", allow: ["42"]}
`, srv.URL(), tg.Token, tg.URL))
	startServe(t, h, tg.Token)
	alice := telegramtest.User{ID: 42, FirstName: "Alice"}
	tg.UserMessage(telegramtest.Incoming{From: alice, Text: "Our staging server is staging-2 now."})
	waitText(t, tg, 42, "Noted: Our staging server")
	if n := extractions.Load(); n != 0 {
		t.Fatalf("%d extractions while the chat goes on", n)
	}
	tg.UserMessage(telegramtest.Incoming{From: alice, Text: "/new"})
	waitText(t, tg, 42, "A new session starts")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(h.hermes("memory", "list").stdout, "staging-2") {
		if time.Now().After(deadline) {
			t.Fatalf("/new did not extract the chat's facts: %d extractions", extractions.Load())
		}
		time.Sleep(100 * time.Millisecond)
	}
	tg.UserMessage(telegramtest.Incoming{From: alice, Text: "What is the staging server?"})
	waitText(t, tg, 42, "What is the staging server?")
	last := srv.Requests()[len(srv.Requests())-1].LastUserText()
	if !strings.Contains(last, "<recalled-memory>") || !strings.Contains(last, "staging-2") {
		t.Errorf("the next session's first message did not recall the fact:\n%s", last)
	}
	if n := extractions.Load(); n != 1 {
		t.Errorf("%d extractions, want 1", n)
	}
}

// A chat left idle is extracted even when hermes serve stops before its
// idle time is up: the next serve takes the due extraction up, and makes
// it once.
func TestIdleChatExtractedAfterARestart(t *testing.T) {
	h, srv, extractions := rememberingHome(t, func(last string) string { return "Noted: " + last }, func(string) string {
		return oneFact("fact", "staging server", "The user's staging server is staging-2.")
	})
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {extract_after: 8s}
gateway:
  telegram: {token: "%s", base_url: "%s", allow: ["42"]}
`, srv.URL(), tg.Token, tg.URL))
	stop, _ := startServe(t, h, tg.Token)
	alice := telegramtest.User{ID: 42, FirstName: "Alice"}
	tg.UserMessage(telegramtest.Incoming{From: alice, Text: "Our staging server is staging-2 now."})
	waitText(t, tg, 42, "Noted: Our staging server")
	stop()
	if n := extractions.Load(); n != 0 {
		t.Fatalf("%d extractions before the chat was idle for extract_after", n)
	}
	startServe(t, h, tg.Token)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(h.hermes("memory", "list").stdout, "staging-2") {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted serve did not extract the idle chat: %d extractions", extractions.Load())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := extractions.Load(); n != 1 {
		t.Errorf("%d extractions, want 1", n)
	}
}
