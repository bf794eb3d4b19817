package telegram_test

import (
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram"
)

// A bot that polls allows one consumer, so replicas elect who polls; a
// bot on a webhook is reached wherever the webhook lands.
func TestCapsOneConsumer(t *testing.T) {
	polls, err := telegram.New(telegram.Options{Token: "123:abc"})
	if err != nil {
		t.Fatal(err)
	}
	hooked, err := telegram.New(telegram.Options{Token: "123:abc", Webhook: &telegram.Webhook{URL: "https://bot.example.com/hooks/telegram"}})
	if err != nil {
		t.Fatal(err)
	}
	if !polls.Caps().OneConsumer || hooked.Caps().OneConsumer {
		t.Fatalf("OneConsumer polling %v, on a webhook %v; want true, false", polls.Caps().OneConsumer, hooked.Caps().OneConsumer)
	}
}
