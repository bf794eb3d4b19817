package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Through the real binary in Telegram's webhook mode: serve sets the
// webhook with a secret, answers what Telegram posts to it, and refuses a
// forged post that lacks the secret before it reaches the model.
func TestGatewayTelegramWebhookMode(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "posted: " + r.LastUserText()} })
	gatewayServe(t, h, tg, srv, fmt.Sprintf("    webhook: {url: \"http://%s/hooks/telegram\"}\n  webhook: {listen: %q}\n", addr, addr))

	tg.UserMessage(telegramtest.Incoming{Text: "hello by webhook"})
	waitText(t, tg, 42, "posted: hello by webhook")
	if tg.Webhook() != "http://"+addr+"/hooks/telegram" || tg.WebhookSecret() == "" {
		t.Errorf("webhook %q, secret set: %v", tg.Webhook(), tg.WebhookSecret() != "")
	}
	if n := tg.CallCount("getUpdates"); n != 0 {
		t.Errorf("%d polls in webhook mode", n)
	}
	forged := `{"update_id":99,"message":{"message_id":5,"date":1,"chat":{"id":42,"type":"private"},"from":{"id":42,"first_name":"Alice"},"text":"forged"}}`
	resp, err := http.Post("http://"+addr+"/hooks/telegram", "application/json", strings.NewReader(forged))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a post without the secret got %d, want 401", resp.StatusCode)
	}
	tg.UserMessage(telegramtest.Incoming{Text: "and again"})
	waitText(t, tg, 42, "posted: and again")
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUserText(), "forged") {
			t.Errorf("the forged update reached the model")
		}
	}
}
