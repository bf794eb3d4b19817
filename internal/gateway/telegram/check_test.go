package telegram_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

func TestCheck(t *testing.T) {
	h := newHarness(t)
	who, err := h.tg.Check(ctxT(t))
	if err != nil || who != "@hermes_bot (id 1000); polling" {
		t.Errorf("Check = %q, %v", who, err)
	}
	h.srv.SetWebhook("https://elsewhere.example.com/x")
	if who, _ := h.tg.Check(ctxT(t)); !strings.Contains(who, "a webhook to elsewhere.example.com is set") {
		t.Errorf("with another's webhook: %q", who)
	}
	// Webhook mode, before and after serve set it.
	srv := telegramtest.New(telegramtest.Options{})
	t.Cleanup(srv.Close)
	hooked, err := telegram.New(telegram.Options{Token: srv.Token, BaseURL: srv.URL, Webhook: &telegram.Webhook{URL: "https://bot.example.com/tg"}})
	if err != nil {
		t.Fatal(err)
	}
	if who, _ := hooked.Check(ctxT(t)); !strings.Contains(who, "webhook mode, not set yet") {
		t.Errorf("webhook mode before it is set: %q", who)
	}
	srv.SetWebhook("https://bot.example.com/tg")
	if who, _ := hooked.Check(ctxT(t)); !strings.Contains(who, "webhook to bot.example.com") {
		t.Errorf("webhook mode once set: %q", who)
	}
	bad, err := telegram.New(telegram.Options{Token: "1:wrong", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Check(ctxT(t)); err == nil || !strings.Contains(err.Error(), "refused the token") || strings.Contains(err.Error(), "1:wrong") {
		t.Errorf("a wrong token: %v", err)
	}
}
