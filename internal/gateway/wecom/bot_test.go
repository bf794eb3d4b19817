package wecom_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

// botRig is a Bot receiving from a wecomtest bot server, on a fake clock.
type botRig struct {
	srv    *wecomtest.Bot
	bot    *wecom.Bot
	clock  *clock.Fake
	log    *syncBuf
	events chan gateway.Event
	done   chan error
}

func newBotRig(t *testing.T, secret string) *botRig {
	t.Helper()
	r := &botRig{clock: clock.NewFake(time.Now()), log: &syncBuf{}, events: make(chan gateway.Event, 16), done: make(chan error, 1)}
	r.srv = wecomtest.NewBot(wecomtest.BotOptions{Clock: r.clock})
	t.Cleanup(r.srv.Close)
	if secret == "" {
		secret = r.srv.Secret
	}
	bot, err := wecom.NewBot(wecom.BotOptions{BotID: r.srv.BotID, Secret: secret, WSURL: r.srv.URL, Clock: r.clock,
		Logger: slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	r.bot = bot
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r.done <- bot.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			r.events <- ev
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("Receive did not stop")
		}
	})
	return r
}

// waitLog waits until the log holds want n times.
func (r *botRig) waitLog(t *testing.T, want string, n int) {
	t.Helper()
	r.log.wait(t, want, n)
}

// waitFor waits until cond holds on the server.
func (r *botRig) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.srv.Wait(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v\nlog:\n%s", what, err, r.log.String())
	}
}

func (r *botRig) connected(t *testing.T, n int) {
	t.Helper()
	r.waitFor(t, "a subscription", func() bool { return r.srv.Subscribes() >= n && r.srv.Connected() })
}

func (r *botRig) say(t *testing.T, in wecomtest.BotIncoming) gateway.Event {
	t.Helper()
	if _, err := r.srv.Message(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return r.next(t)
}

func (r *botRig) next(t *testing.T) gateway.Event {
	t.Helper()
	select {
	case ev := <-r.events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("no event\nlog:\n%s", r.log.String())
	}
	return gateway.Event{}
}

// A message comes in as an event; the reply is one stream, sent again
// with all its text as it grows and finished after a quiet spell. More
// text after that goes on in a new stream from where the first stopped.
func TestBotStreamsReply(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	ctx := context.Background()
	ev := r.say(t, wecomtest.BotIncoming{From: "zhangsan", Text: "你好"})
	if ev.Chat != (gateway.Chat{ID: "zhangsan", Type: gateway.DM}) || ev.User.ID != "zhangsan" || ev.Text != "你好" || !ev.Addressed || !strings.HasPrefix(ev.ID, "msg:") {
		t.Fatalf("event %+v", ev)
	}
	ref, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "Hel"})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Hello", "Hello, 张三", "Hello, 张三"} {
		if err := r.bot.Edit(ctx, ref, gateway.Outgoing{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	s := r.srv.Streams("zhangsan")
	if len(s) != 1 || s[0].Content != "Hello, 张三" || s[0].Finished || s[0].Updates != 3 {
		t.Fatalf("streams %+v", s)
	}
	r.clock.Advance(10 * time.Second)
	r.waitFor(t, "the stream to finish", func() bool { s := r.srv.Streams("zhangsan"); return len(s) == 1 && s[0].Finished })
	if err := r.bot.Edit(ctx, ref, gateway.Outgoing{Text: "Hello, 张三. More."}); err != nil {
		t.Fatal(err)
	}
	s = r.srv.Streams("zhangsan")
	if len(s) != 2 || s[1].Content != ". More." || s[0].Content != "Hello, 张三" {
		t.Errorf("text after the finish: %+v", s)
	}
	// The next reply finishes the open one first.
	if _, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "next"}); err != nil {
		t.Fatal(err)
	}
	s = r.srv.Streams("zhangsan")
	if len(s) != 3 || !s[1].Finished || s[2].Content != "next" || s[2].Finished {
		t.Errorf("a new reply: %+v", s)
	}
	if err := r.bot.Edit(ctx, ref, gateway.Outgoing{Text: "late"}); !errors.Is(err, gateway.ErrCannotEdit) {
		t.Errorf("editing a reply that was followed by another: %v", err)
	}
	if v := r.srv.Violations(); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
}

// In a group only messages that @-mention the bot are addressed; a
// message pushed again has the same id, so the gateway drops it.
func TestBotGroupsAndRedelivery(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	ev := r.say(t, wecomtest.BotIncoming{From: "lisi", Group: "wrkgrp1", Text: "@hermes 帮我看看"})
	if ev.Chat != (gateway.Chat{ID: "wrkgrp1", Type: gateway.Group}) || ev.User.ID != "lisi" || !ev.Addressed {
		t.Errorf("a mention: %+v", ev)
	}
	if ev := r.say(t, wecomtest.BotIncoming{From: "lisi", Group: "wrkgrp1", Text: "just chatting"}); ev.Addressed {
		t.Errorf("a group message without a mention is addressed: %+v", ev)
	}
	id, err := r.srv.Message(context.Background(), wecomtest.BotIncoming{Text: "once"})
	if err != nil {
		t.Fatal(err)
	}
	first := r.next(t)
	if err := r.srv.Redeliver(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if again := r.next(t); again.ID != first.ID {
		t.Errorf("redelivered as %q, first %q", again.ID, first.ID)
	}
}

// A dropped connection and a ping left unanswered are both followed by a
// new connection, after a backoff; messages flow again.
func TestBotReconnects(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	r.srv.Drop()
	r.waitLog(t, "reconnecting", 1)
	r.clock.BlockUntil(1) // the backoff
	r.clock.Advance(time.Second)
	r.connected(t, 2)
	r.clock.BlockUntil(1) // the ping timer

	r.srv.IgnorePings(true)
	r.clock.Advance(30 * time.Second)
	r.waitFor(t, "a ping", func() bool { return r.srv.Pings() == 1 })
	r.clock.BlockUntil(1) // the next ping's timer
	r.clock.Advance(30 * time.Second)
	r.waitLog(t, "was not answered", 1)
	r.clock.BlockUntil(1)
	r.clock.Advance(time.Second)
	r.connected(t, 3)
	if ev := r.say(t, wecomtest.BotIncoming{Text: "still there?"}); ev.Text != "still there?" {
		t.Errorf("after reconnecting: %+v", ev)
	}
}

// A refused bot id or secret stops Receive with an error that names the
// setting and holds no secret.
func TestBotRefusedCredentials(t *testing.T) {
	r := newBotRig(t, "wrong-secret-0123456789")
	var err error
	select {
	case err = <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Receive goes on with a refused secret")
	}
	r.done <- err // for the cleanup
	if err == nil || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("Receive: %v", err)
	}
	if strings.Contains(r.log.String(), "wrong-secret") || !strings.Contains(r.log.String(), "gateway.wecom.bot") {
		t.Errorf("log:\n%s", r.log.String())
	}
}

// Errcodes in the answers are classified as the app's are; a message too
// old to answer is replied to proactively; more than 20480 bytes is
// refused before it is sent.
func TestBotSendFailures(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	ctx := context.Background()
	ev := r.say(t, wecomtest.BotIncoming{Text: "hi"})
	r.srv.FailNext(45009, -1)
	_, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "x"})
	if se := sendErr(t, err); se.Kind != gateway.RateLimited || se.RetryAfter <= 0 {
		t.Errorf("45009: %v", se)
	}
	_, err = r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "x"})
	if se := sendErr(t, err); se.Kind != gateway.Temporary {
		t.Errorf("-1: %v", se)
	}
	_, err = r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: strings.Repeat("字", wecom.MaxStream/3+1)})
	if se := sendErr(t, err); se.Kind != gateway.Permanent {
		t.Errorf("over 20480 bytes: %v", se)
	}
	r.clock.Advance(5 * time.Minute)
	if _, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "later"}); err != nil {
		t.Fatal(err)
	}
	if p := r.srv.Proactive("alice"); len(p) != 1 || p[0].Content != "later" {
		t.Errorf("proactive %+v", p)
	}
	if v := r.srv.Violations(); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
}

// Finishing a stream that WeCom rate-limits, or while the connection is
// down, is tried again later instead of leaving the stream open.
func TestBotFinishIsRetried(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	ctx := context.Background()
	ev := r.say(t, wecomtest.BotIncoming{Text: "hi"})
	if _, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "answer"}); err != nil {
		t.Fatal(err)
	}
	r.srv.FailNext(45009)
	r.clock.Advance(10 * time.Second)
	if s := r.srv.Streams("alice"); len(s) != 1 || s[0].Finished {
		t.Fatalf("streams %+v", s)
	}
	r.clock.Advance(10 * time.Second)
	r.waitFor(t, "the stream to finish", func() bool { s := r.srv.Streams("alice"); return len(s) == 1 && s[0].Finished })
}

// A reply still growing when its message becomes too old to answer goes
// on proactively: the text not yet shown is sent when the reply goes
// quiet, once, and a reply that started proactively grows the same way.
func TestBotReplyOutlivesItsMessage(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	ctx := context.Background()
	ev := r.say(t, wecomtest.BotIncoming{Text: "a long job"})
	ref, err := r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "Working"})
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(10 * time.Second) // finished for quiet
	r.clock.Advance(5 * time.Minute)
	for _, text := range []string{"Working. Step one", "Working. Step one done."} {
		if err := r.bot.Edit(ctx, ref, gateway.Outgoing{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if p := r.srv.Proactive("alice"); len(p) != 0 {
		t.Fatalf("sent before the reply went quiet: %+v", p)
	}
	r.clock.Advance(10 * time.Second)
	r.waitFor(t, "the rest", func() bool { return len(r.srv.Proactive("alice")) == 1 })
	if p := r.srv.Proactive("alice"); p[0].Content != ". Step one done." {
		t.Errorf("the rest: %q", p[0].Content)
	}
	if s := r.srv.Streams("alice"); len(s) != 1 || s[0].Content != "Working" || !s[0].Finished {
		t.Errorf("streams %+v", s)
	}

	ref, err = r.bot.Send(ctx, ev.Chat, gateway.Outgoing{Text: "Later"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.bot.Edit(ctx, ref, gateway.Outgoing{Text: "Later, more"}); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(10 * time.Second)
	r.waitFor(t, "the proactive reply", func() bool { return len(r.srv.Proactive("alice")) == 3 })
	if p := r.srv.Proactive("alice"); p[1].Content != "Later" || p[2].Content != ", more" {
		t.Errorf("proactive %+v", p)
	}
	if v := r.srv.Violations(); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
}

// hermes gateway status: the bot's check opens the long connection
// without subscribing, so a running serve keeps its own.
func TestBotCheck(t *testing.T) {
	r := newBotRig(t, "")
	r.connected(t, 1)
	who, err := r.bot.Check(context.Background())
	if err != nil || !strings.Contains(who, r.srv.BotID) {
		t.Errorf("check: %q, %v", who, err)
	}
	if n := r.srv.Subscribes(); n != 1 || !r.srv.Connected() {
		t.Errorf("the check subscribed: %d subscriptions", n)
	}
	gone, err := wecom.NewBot(wecom.BotOptions{BotID: "b", Secret: "s", WSURL: "ws://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot be opened") {
		t.Errorf("an unreachable long connection: %v", err)
	}
}
