package discord_test

import (
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/discord"
)

// A bot has one Gateway session, so replicas elect who holds it.
func TestCapsOneConsumer(t *testing.T) {
	dc, err := discord.New(discord.Options{Token: "a.b.c"})
	if err != nil {
		t.Fatal(err)
	}
	if !dc.Caps().OneConsumer {
		t.Fatal("Discord does not say it allows one consumer")
	}
}
