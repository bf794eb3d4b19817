package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// gatewayServe starts hermes serve with Telegram pointed at tg and the
// model at srv, in h.cwd (the hermes home when empty), and stops it when
// the test ends, or earlier when the function it returns is called.
func gatewayServe(t *testing.T, h *home, tg *telegramtest.Server, srv *llmtest.Server, extra string) (stop func()) {
	t.Helper()
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  telegram:
    token: "%s"
    base_url: "%s"
    allow: ["42"]
%s`, srv.URL(), tg.Token, tg.URL, extra))
	stop, _ = startServe(t, h, tg.Token)
	return stop
}

// waitText waits until a bot message in chat holds want, and returns it.
func waitText(t *testing.T, tg *telegramtest.Server, chat int64, want string) telegramtest.Message {
	t.Helper()
	return waitSent(t, tg.Wait, func() []telegramtest.Message { return tg.Sent(chat) },
		func(m telegramtest.Message) string { return m.Text }, fmt.Sprint("chat ", chat), want)
}

// Through the real binary: someone allowed is answered; a stranger gets a
// pairing code, the owner approves it with hermes pairing, and then the
// stranger is answered too. The menu of commands was set.
func TestGatewayTelegramAnswersAndPairs(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close) // after serve has stopped: cleanups run last first
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Hello **Alice**, <b>not html</b> & more."}, llmtest.Reply{Text: "Welcome, Bob."})
	gatewayServe(t, h, tg, srv, "")

	tg.UserMessage(telegramtest.Incoming{Text: "hi hermes"})
	got := waitText(t, tg, 42, "Hello Alice")
	if !strings.Contains(got.Text, "<b>not html</b> & more.") {
		t.Errorf("the reply's own angle brackets were not shown as text: %q (sent as %q)", got.Text, got.Raw)
	}

	bob := telegramtest.User{ID: 77, FirstName: "Bob", Username: "bob"}
	tg.UserMessage(telegramtest.Incoming{From: bob, Text: "let me in"})
	msg := waitText(t, tg, 77, "hermes pairing approve telegram ")
	code := strings.Fields(msg.Text[strings.Index(msg.Text, "approve telegram ")+len("approve telegram "):])[0]
	if r := h.hermes("pairing", "approve", "telegram", code); r.code != 0 {
		t.Fatalf("approve %q: exit %d %s", code, r.code, r.stderr)
	}
	tg.UserMessage(telegramtest.Incoming{From: bob, Text: "thanks"})
	waitText(t, tg, 77, "Welcome, Bob.")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2: the stranger's first message must not reach the model", n)
	}
	var names []string
	for _, c := range tg.Commands() {
		names = append(names, c.Command)
	}
	if !strings.Contains(strings.Join(names, " "), "approve") || !strings.Contains(strings.Join(names, " "), "new") {
		t.Errorf("the command menu is %q", names)
	}
}

// A dangerous command the model wants asks the chat with buttons; a
// stranger's press does nothing, the owner's "Deny" refuses it, and the
// command never runs.
func TestGatewayTelegramApprovalButtons(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close) // after serve has stopped: cleanups run last first
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "deleted")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "I did not delete it."})
	gatewayServe(t, h, tg, srv, "")

	tg.UserMessage(telegramtest.Incoming{Text: "clean up"})
	ask := waitText(t, tg, 42, "needs your approval")
	var deny string
	if ask.ReplyMarkup != nil {
		for _, row := range ask.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				if b.Text == "Deny" {
					deny = b.CallbackData
				}
			}
		}
	}
	if deny == "" {
		t.Fatalf("the request has no Deny button: %+v", ask)
	}
	tg.Press(42, ask.MessageID, telegramtest.User{ID: 99, FirstName: "Mallory"}, strings.TrimSuffix(deny, ":d")+":o")
	tg.Press(42, ask.MessageID, telegramtest.Alice(), deny)
	waitText(t, tg, 42, "Denied by")
	waitText(t, tg, 42, "I did not delete it.")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the denied command ran")
	}
}
