package discord_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// dmChat is Alice's DM channel, made on the server by a message of hers.
func dmChat(h *harness) gateway.Chat {
	h.srv.UserMessage(discordtest.Incoming{Content: "hi"})
	return gateway.Chat{ID: discordtest.DMChannel(discordtest.Alice()), Type: gateway.DM}
}

// A reply is sent as a reply, with mentions defused and allowed_mentions
// empty, so that no text the model writes pings anyone; buttons become
// components, and an edit without buttons removes them.
func TestSendRepliesWithoutPinging(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	chat := dmChat(h)
	asked := h.srv.UserMessage(discordtest.Incoming{Content: "ping them"})
	text := "Hi @everyone and @here, <@123456> and <@&987654>: `@everyone` stays in code."
	ref, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: text, ReplyTo: asked.ID,
		Buttons: [][]gateway.Button{{{Text: "Allow once", Data: "ap:0123456789ab:o"}, {Text: "Deny", Data: "ap:0123456789ab:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sent := h.srv.Sent(chat.ID)
	if len(sent) != 1 || sent[0].ID != ref.ID {
		t.Fatalf("sent %+v, ref %+v", sent, ref)
	}
	m := sent[0]
	for _, ping := range []string{"@everyone ", "@here,", "<@123456>", "<@&987654>"} {
		if strings.Contains(strings.ReplaceAll(m.Content, "`@everyone`", ""), ping) {
			t.Errorf("%q is live in %q", ping, m.Content)
		}
	}
	if !strings.Contains(m.Content, "`@everyone`") {
		t.Errorf("the code span was changed: %q", m.Content)
	}
	if m.AllowedMentions == nil || m.AllowedMentions.Parse == nil || len(m.AllowedMentions.Parse) != 0 {
		t.Errorf("allowed_mentions %+v, want parse: []", m.AllowedMentions)
	}
	if m.MessageReference == nil || m.MessageReference.MessageID != asked.ID {
		t.Errorf("message_reference %+v, want %s", m.MessageReference, asked.ID)
	}
	if len(m.Components) != 1 || len(m.Components[0].Components) != 2 || m.Components[0].Components[1].CustomID != "ap:0123456789ab:d" {
		t.Errorf("components %+v", m.Components)
	}

	if err := h.dc.Edit(ctx, ref, gateway.Outgoing{Text: "Denied."}); err != nil {
		t.Fatal(err)
	}
	m = h.srv.Sent(chat.ID)[0]
	if m.Content != "Denied." || len(m.Components) != 0 || m.Edits != 1 {
		t.Errorf("after the edit: %+v", m)
	}
}

// What Discord would refuse is refused before a request, as Permanent,
// with what is accepted: content over 2000 code points, a custom_id over
// 100 characters, six buttons in a row, an id that is not a snowflake.
func TestSendRefusesWhatDiscordWould(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	chat := dmChat(h)
	before := len(h.srv.Requests())
	six := make([]gateway.Button, 6)
	for i := range six {
		six[i] = gateway.Button{Text: "b", Data: "d"}
	}
	for name, c := range map[string]struct {
		chat gateway.Chat
		m    gateway.Outgoing
		want string
	}{
		"long":      {chat, gateway.Outgoing{Text: strings.Repeat("é", 2001)}, "2000"},
		"custom_id": {chat, gateway.Outgoing{Text: "x", Buttons: [][]gateway.Button{{{Text: "b", Data: strings.Repeat("a", 101)}}}}, "1 to 100"},
		"row":       {chat, gateway.Outgoing{Text: "x", Buttons: [][]gateway.Button{six}}, "1 to 5"},
		"label":     {chat, gateway.Outgoing{Text: "x", Buttons: [][]gateway.Button{{{Text: strings.Repeat("l", 81), Data: "d"}}}}, "1 to 80"},
		"empty":     {chat, gateway.Outgoing{Text: "  "}, "neither text nor files"},
		"channel":   {gateway.Chat{ID: "../../guilds/1"}, gateway.Outgoing{Text: "x"}, "snowflake"},
		"reply":     {chat, gateway.Outgoing{Text: "x", ReplyTo: "1/../../x"}, "snowflake"},
	} {
		_, err := h.dc.Send(ctx, c.chat, c.m)
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != gateway.Permanent || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a permanent error saying %q", name, err, c.want)
		}
	}
	if n := len(h.srv.Requests()) - before; n != 0 {
		t.Errorf("%d requests were made for messages refused beforehand", n)
	}
	// 2000 code points of emoji (4000 UTF-16 units) are accepted.
	if _, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: strings.Repeat("😀", 2000)}); err != nil {
		t.Errorf("2000 emoji: %v", err)
	}
}

// A 429 is RateLimited with its fractional retry_after; a 5xx is
// Temporary.
func TestSendClassifiesFailures(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	chat := dmChat(h)
	h.srv.Fail429(chat.ID, 1.5)
	_, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	var se *gateway.SendError
	if !errors.As(err, &se) || se.Kind != gateway.RateLimited || se.RetryAfter != 1500*time.Millisecond {
		t.Fatalf("after a 429: %v", err)
	}
	_, err = h.dc.Send(ctx, gateway.Chat{ID: "999"}, gateway.Outgoing{Text: "x"})
	if !errors.As(err, &se) || se.Kind != gateway.Permanent || !strings.Contains(err.Error(), "Unknown Channel") {
		t.Fatalf("to an unknown channel: %v", err)
	}
}

// The adapter keeps the buckets the answers announce: once a bucket says
// Remaining 0, the next request in it waits for the reset instead of
// earning a 429; a global 429 holds the next request of any route.
func TestRateLimitBucketsAreKept(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	h := newHarness(t, fake)
	ctx := context.Background()
	chat := dmChat(h)
	h.srv.RateLimit(chat.ID, 2, 5*time.Second)
	for i := range 2 {
		if _, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: "x"}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: "third"})
		done <- err
	}()
	blockUntil(t, fake, 1)
	select {
	case err := <-done:
		t.Fatalf("the third send went before the bucket reset: %v", err)
	default:
	}
	// Another channel's bucket is its own: a send there goes at once.
	other := gateway.Chat{ID: "5" + "77"}
	h.srv.UserMessage(discordtest.Incoming{From: discordtest.User{ID: "77", Username: "bob"}, Content: "hi"})
	if _, err := h.dc.Send(ctx, other, gateway.Outgoing{Text: "to bob"}); err != nil {
		t.Fatalf("a send to another channel: %v", err)
	}
	fake.Advance(5 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if limited, early := h.srv.Limited(chat.ID); limited != 0 || early != 0 {
		t.Errorf("%d 429s and %d requests into an empty bucket, want none", limited, early)
	}

	h.srv.Global429(2)
	if _, err := h.dc.Send(ctx, chat, gateway.Outgoing{Text: "global"}); err == nil {
		t.Fatal("a global 429 was not reported")
	}
	go func() {
		done <- h.dc.Typing(ctx, gateway.Chat{ID: "777"}) // another route, held too
	}()
	blockUntil(t, fake, 1)
	fake.Advance(2 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A file is uploaded as multipart with payload_json, and the text rides
// with it.
func TestSendUploadsFiles(t *testing.T) {
	h := newHarness(t, nil)
	chat := dmChat(h)
	path := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(path, []byte("numbers"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.dc.Send(context.Background(), chat, gateway.Outgoing{Text: "here @everyone", Files: []string{path}}); err != nil {
		t.Fatal(err)
	}
	m := h.srv.Sent(chat.ID)[0]
	if len(m.Attachments) != 1 || m.Attachments[0].Filename != "report.txt" || strings.Contains(m.Content, "@everyone") || m.AllowedMentions == nil {
		t.Errorf("sent %+v", m)
	}
}

// blockUntil waits until n waits are on the fake clock, failing the test
// after ten seconds instead of hanging.
func blockUntil(t *testing.T, fake *clock.Fake, n int) {
	t.Helper()
	done := make(chan struct{})
	go func() { fake.BlockUntil(n); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("nothing waited on the clock")
	}
}
