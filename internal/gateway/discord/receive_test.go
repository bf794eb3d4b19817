package discord_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord"
	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// A direct message and a guild message become events: a DM is always
// addressed; in a guild, a mention of the bot (either form) or a reply to
// one of its messages addresses it, and nothing else does (not
// @everyone). The bot's own messages, other bots' and system messages
// are not delivered.
func TestReceiveMessagesAndAddressing(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)

	dm := h.srv.UserMessage(discordtest.Incoming{Content: "hello"})
	ev := h.next(t)
	if ev.ID != dm.ID || ev.Kind != gateway.KindMessage || ev.Chat.Type != gateway.DM || ev.Chat.ID != discordtest.DMChannel(discordtest.Alice()) ||
		!ev.Addressed || ev.Text != "hello" || ev.User.ID != "42" || ev.User.Name != "Alice" || ev.MessageID != dm.ID {
		t.Fatalf("DM event %+v", ev)
	}

	const ch, guild = "700", "800"
	bot := h.srv.Bot.ID
	for _, c := range []struct {
		content string
		want    bool
	}{
		{"just chatting", false},
		{"@everyone look", false},
		{"hey <@" + bot + "> help", true},
		{"hey <@!" + bot + "> help", true},
		{"hey <@1234> help", false},
	} {
		h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: c.content})
		ev := h.next(t)
		if ev.Chat.Type != gateway.Group || ev.Chat.ID != ch || ev.Addressed != c.want || ev.Text != c.content {
			t.Errorf("%q: event %+v, want addressed %v", c.content, ev, c.want)
		}
	}

	// A reply to the bot's message is addressed.
	ref, err := h.dc.Send(context.Background(), gateway.Chat{ID: ch, Type: gateway.Group}, gateway.Outgoing{Text: "I am here"})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "thanks", ReplyTo: ref.ID})
	if ev := h.next(t); !ev.Addressed {
		t.Errorf("a reply to the bot is not addressed: %+v", ev)
	}

	h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, From: h.srv.Bot, Content: "my own"})
	h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, From: discordtest.User{ID: "55", Username: "otherbot", Bot: true}, Content: "<@" + bot + "> beep"})
	h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "pinned a message", Type: 6})
	h.none(t, ch)
}

// Without MESSAGE_CONTENT guild messages arrive empty, so the adapter
// must identify with it: the server gates content by the intents sent.
func TestIdentifyAsksForMessageContent(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	h.srv.UserMessage(discordtest.Incoming{Channel: "700", Guild: "800", Content: "not mentioning anyone"})
	if ev := h.next(t); ev.Text != "not mentioning anyone" {
		t.Fatalf("the guild message arrived as %q: MESSAGE_CONTENT was not asked for", ev.Text)
	}
}

// A dropped connection is resumed at resume_gateway_url with the session
// and the last sequence number; what was sent meanwhile is replayed, and
// no second Identify is made.
func TestDroppedConnectionResumes(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	first := h.srv.UserMessage(discordtest.Incoming{Content: "one"})
	if ev := h.next(t); ev.ID != first.ID {
		t.Fatalf("got %+v", ev)
	}
	h.srv.Drop()
	second := h.srv.UserMessage(discordtest.Incoming{Content: "two"})
	if ev := h.next(t); ev.ID != second.ID {
		t.Fatalf("after the drop got %+v, want the message sent meanwhile", ev)
	}
	rs := h.srv.Resumes()
	if len(rs) == 0 || rs[0].SessionID == "" || rs[0].Path != "/resume" || rs[0].Seq < 2 {
		t.Fatalf("resumes %+v: want the session resumed at resume_gateway_url from the last sequence", rs)
	}
	if n := h.srv.Identifies(); n != 1 {
		t.Errorf("%d identifies, want 1: a drop is resumed, not identified afresh", n)
	}
}

// Heartbeats carry the last sequence number; a heartbeat not
// acknowledged before the next closes the connection, which is resumed.
func TestMissedHeartbeatACKResumes(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	h.srv.UserMessage(discordtest.Incoming{Content: "one"})
	h.next(t)
	h.wait(t, "a heartbeat with the sequence number", func() bool {
		for _, s := range h.srv.Heartbeats() {
			if s != nil && *s >= 2 {
				return true
			}
		}
		return false
	})
	h.srv.StopACKs(true)
	h.wait(t, "a resume after missed ACKs", func() bool { return len(h.srv.Resumes()) > 0 })
	h.srv.StopACKs(false)
	h.live(t)
	m := h.srv.UserMessage(discordtest.Incoming{Content: "after"})
	if ev := h.next(t); ev.ID != m.ID {
		t.Fatalf("got %+v", ev)
	}
	if !strings.Contains(h.logs.String(), "heartbeat ACK") {
		t.Errorf("the log does not say why the connection was closed:\n%s", h.logs.String())
	}
}

// Op 7 Reconnect and a resumable op 9 are resumed; op 9 with false is
// identified afresh.
func TestReconnectAndInvalidSession(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	h.srv.Reconnect()
	h.wait(t, "a resume after op 7", func() bool { return len(h.srv.Resumes()) == 1 })
	h.live(t)
	h.srv.InvalidSession(true)
	h.wait(t, "a resume after a resumable op 9", func() bool { return len(h.srv.Resumes()) == 2 })
	h.live(t)
	h.srv.InvalidSession(false)
	h.wait(t, "an identify after op 9 false", func() bool { return h.srv.Identifies() == 2 })
	if n := len(h.srv.Resumes()); n != 2 {
		t.Errorf("%d resumes, want 2: a session Discord invalidated is not resumed", n)
	}
	h.live(t)
	m := h.srv.UserMessage(discordtest.Incoming{Content: "still here"})
	if ev := h.next(t); ev.ID != m.ID {
		t.Fatalf("got %+v", ev)
	}
}

// The close codes Discord says not to retry stop Receive with an error
// that says what to fix, without the token; an ordinary close code is
// resumed.
func TestCloseCodes(t *testing.T) {
	for _, c := range []struct {
		code int
		want string
	}{
		{4004, "token"},
		{4014, "Message Content Intent"},
		{4013, "invalid intents"},
		{4011, "sharding"},
	} {
		h := newHarness(t, nil)
		h.receive(t, nil)
		h.srv.CloseWith(c.code, "closing")
		select {
		case err := <-h.done:
			h.done <- err // for the cleanup
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), h.srv.Token) {
				t.Errorf("close %d: Receive returned %v, want an error about %q without the token", c.code, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("close %d: Receive goes on", c.code)
		}
		if n := len(h.srv.Resumes()); n != 0 {
			t.Errorf("close %d: %d resumes, want none", c.code, n)
		}
	}

	h := newHarness(t, nil)
	h.receive(t, nil)
	h.srv.CloseWith(4000, "unknown error")
	h.wait(t, "a resume after close 4000", func() bool { return len(h.srv.Resumes()) == 1 })
}

// An intent the portal has not enabled closes the first connection with
// 4014, and Receive says where to enable it.
func TestDisallowedIntentStops(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.RefuseContentIntent()
	err := h.dc.Receive(context.Background(), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "4014") || !strings.Contains(err.Error(), "Privileged Gateway Intents") {
		t.Fatalf("Receive returned %v", err)
	}
}

// A wrong token is refused by GET /gateway/bot: Receive stops at once.
func TestWrongTokenStops(t *testing.T) {
	h := newHarness(t, nil)
	dc := newAdapter(t, h.srv, "MTIz.wrong.token-value")
	err := dc.Receive(context.Background(), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "token") || strings.Contains(err.Error(), "wrong.token") {
		t.Fatalf("Receive returned %v", err)
	}
}

// An event deliver refuses is offered again: the adapter resumes from
// before it and Discord replays it.
func TestRefusedEventIsReplayed(t *testing.T) {
	h := newHarness(t, nil)
	var refused atomic.Bool
	h.receive(t, func(_ context.Context, ev gateway.Event) error {
		if ev.Text == "refuse once" && refused.CompareAndSwap(false, true) {
			return errors.New("state.db is busy")
		}
		h.events <- ev
		return nil
	})
	m := h.srv.UserMessage(discordtest.Incoming{Content: "refuse once"})
	if ev := h.next(t); ev.ID != m.ID || !refused.Load() {
		t.Fatalf("got %+v (refused %v)", ev, refused.Load())
	}
	if len(h.srv.Resumes()) == 0 {
		t.Error("the refused event came back without a resume")
	}
}

// A command in a guild comes after the bot's mention, which is taken off
// so that the gateway sees the command; other text keeps the mention.
func TestCommandAfterMention(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	bot := h.srv.Bot.ID
	for in, want := range map[string]string{
		"<@" + bot + "> /new":        "/new",
		" <@!" + bot + ">  /model x": "/model x",
		"<@" + bot + "> hello /new":  "<@" + bot + "> hello /new",
		"<@1234> /new":               "<@1234> /new",
	} {
		h.srv.UserMessage(discordtest.Incoming{Channel: "700", Guild: "800", Content: in})
		if ev := h.next(t); ev.Text != want {
			t.Errorf("%q came as %q, want %q", in, ev.Text, want)
		}
	}
}

// A Gateway that cannot be reached is tried again at once, then after
// one second, two, and so on, doubling.
func TestUnreachableGatewayBacksOff(t *testing.T) {
	var attempts atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		http.Error(w, "down", http.StatusBadGateway)
	}))
	t.Cleanup(down.Close)
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	dc, err := discord.New(discord.Options{Token: "a.b.c", BaseURL: down.URL, GatewayURL: "ws" + strings.TrimPrefix(down.URL, "http"),
		Clock: fake, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dc.Receive(ctx, func(context.Context, gateway.Event) error { return nil }) }()
	defer func() { cancel(); <-done }()
	want := int32(2)
	for _, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		blockUntil(t, fake, 1)
		if n := attempts.Load(); n != want {
			t.Fatalf("%d attempts before a wait of %s, want %d", n, wait, want)
		}
		fake.Advance(wait - time.Millisecond)
		if n := attempts.Load(); n != want {
			t.Fatalf("attempt %d came before %s had passed", n, wait)
		}
		fake.Advance(time.Millisecond)
		want++
	}
}

// With no identifies left today, the adapter waits for the budget's
// reset before it connects, instead of spending identifies Discord would
// refuse.
func TestNoIdentifiesLeftWaitsForReset(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	h := newHarness(t, fake)
	h.srv.IdentifiesLeft(0, 5000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.dc.Receive(ctx, func(context.Context, gateway.Event) error { return nil }) }()
	defer func() { cancel(); <-done }()
	blockUntil(t, fake, 1)
	if n := h.srv.Identifies(); n != 0 {
		t.Fatalf("%d identifies with none left", n)
	}
	fake.Advance(5 * time.Second)
	h.wait(t, "an identify after the reset", func() bool { return h.srv.Identifies() == 1 })
}
