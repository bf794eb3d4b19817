package slack

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
)

func fakeAdapter(t *testing.T, srv *slacktest.Server) *Adapter {
	t.Helper()
	a, err := New(Options{BotToken: srv.BotToken, AppToken: srv.AppToken, BaseURL: srv.URL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A reply goes to the message's thread, pings no one, and buttons come
// as Block Kit actions whose value is the button's data; an edit
// replaces the text and, without buttons, removes them.
func TestSendAndEdit(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a := fakeAdapter(t, srv)
	ctx := context.Background()
	parent := srv.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> hi"})
	chat := gateway.Chat{ID: slacktest.General, Type: gateway.Group, Thread: parent}
	ref, err := a.Send(ctx, chat, gateway.Outgoing{Text: "**Hi** <!channel> & all",
		Buttons: [][]gateway.Button{{{Text: "Allow once", Data: "ap:0123456789ab:o"}, {Text: "Deny", Data: "ap:0123456789ab:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent(slacktest.General)
	if len(sent) != 1 {
		t.Fatalf("sent %+v", sent)
	}
	m := sent[0]
	if m.TS != ref.ID || m.ThreadTS != parent || m.Text != "*Hi* &lt;!channel&gt; &amp; all" ||
		m.Params["parse"] != "none" || m.Params["link_names"] != false || m.Params["unfurl_links"] != false {
		t.Errorf("posted %+v", m)
	}
	if m.Button("Deny") != "ap:0123456789ab:d" || m.Blocks[0].Text.Text != m.Text {
		t.Errorf("blocks %+v", m.Blocks)
	}
	if err := a.Edit(ctx, ref, gateway.Outgoing{Text: "decided"}); err != nil {
		t.Fatal(err)
	}
	m = srv.Sent(slacktest.General)[0]
	if m.Text != "decided" || len(m.Blocks) != 0 || m.Edits != 1 {
		t.Errorf("after the edit %+v", m)
	}
	if err := a.Answer(ctx, gateway.Event{Chat: chat, User: gateway.User{ID: "UMALLORY"}}, "you are not allowed <!here>"); err != nil {
		t.Fatal(err)
	}
	if e := srv.Ephemerals(); len(e) != 1 || e[0].User != "UMALLORY" || e[0].ThreadTS != parent || strings.Contains(e[0].Text, "<!here>") {
		t.Errorf("ephemerals %+v", e)
	}
}

// Slack's failures, most in 200 answers, are told apart: a rate limit
// with its Retry-After, a formatting error, a passing one, and the rest.
// No error shows a token.
func TestSendClassifiesFailures(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	clk := clock.NewFake(time.Unix(1_800_000_000, 0))
	a := fakeAdapter(t, srv)
	a.clock = clk // a rate limit holds the channel until the clock passes it
	ctx := context.Background()
	chat := gateway.Chat{ID: slacktest.AliceDM, Type: gateway.DM}
	check := func(name string, err error, kind gateway.SendFailure) *gateway.SendError {
		t.Helper()
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != kind {
			t.Errorf("%s: %v, want %s", name, err, kind)
			return nil
		}
		if strings.Contains(err.Error(), srv.BotToken) || strings.Contains(err.Error(), srv.AppToken) {
			t.Errorf("%s: the error shows a token: %v", name, err)
		}
		return se
	}
	srv.RateLimit(chat.ID, 3*time.Second)
	_, err := a.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	if se := check("429", err, gateway.RateLimited); se != nil && se.RetryAfter != 3*time.Second {
		t.Errorf("429: retry after %s, want 3s", se.RetryAfter)
	}
	clk.Advance(3 * time.Second)
	srv.FailNext("chat.postMessage", "ratelimited")
	_, err = a.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	check("ok:false ratelimited", err, gateway.RateLimited)
	if n := len(srv.Calls("chat.postMessage")); n != 2 {
		t.Errorf("%d calls, want 2: the second rate limit is Slack's", n)
	}
	clk.Advance(time.Second)
	srv.FailNext("chat.postMessage", "invalid_blocks")
	_, err = a.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	check("invalid_blocks", err, gateway.BadFormat)
	srv.FailNext("chat.postMessage", "internal_error")
	_, err = a.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	check("internal_error", err, gateway.Temporary)
	for _, code := range []string{"msg_too_long", "channel_not_found", "not_in_channel", "is_archived", "invalid_auth"} {
		srv.FailNext("chat.postMessage", code)
		_, err = a.Send(ctx, chat, gateway.Outgoing{Text: "x"})
		check(code, err, gateway.Permanent)
	}
	// The server's own limits answer the same way.
	ref, err := a.Send(ctx, chat, gateway.Outgoing{Text: "short"})
	if err != nil {
		t.Fatal(err)
	}
	check("update over 4000 bytes", a.Edit(ctx, ref, gateway.Outgoing{Text: strings.Repeat("é", 2001)}), gateway.Permanent)
	_, err = a.Send(ctx, chat, gateway.Outgoing{Text: "x", Buttons: [][]gateway.Button{{{Text: "big", Data: strings.Repeat("a", MaxButtonData+1)}}}})
	check("button data over 2000", err, gateway.Permanent)
	bad := &Adapter{botToken: "xoxb-bad", base: srv.URL, client: a.client, log: a.log, clock: a.clock}
	_, err = bad.Send(ctx, chat, gateway.Outgoing{Text: "x"})
	check("a wrong token", err, gateway.Permanent)
	if strings.Contains(err.Error(), "xoxb-bad") {
		t.Errorf("the error shows the token: %v", err)
	}
}

// A reply with buttons longer than a section holds is cut into several
// sections, never inside an escape.
func TestLongTextWithButtonsIsCutIntoSections(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a := fakeAdapter(t, srv)
	text := strings.Repeat("a & b ", 600) // 3,600 characters, 5,400 rendered
	_, err := a.Send(context.Background(), gateway.Chat{ID: slacktest.AliceDM, Type: gateway.DM},
		gateway.Outgoing{Text: text, Buttons: [][]gateway.Button{{{Text: "Deny", Data: "ap:0123456789ab:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	m := srv.Sent(slacktest.AliceDM)[0]
	var joined strings.Builder
	for _, b := range m.Blocks {
		if b.Type == "section" {
			joined.WriteString(b.Text.Text)
			if strings.HasSuffix(b.Text.Text, "&") || strings.HasSuffix(b.Text.Text, "&am") {
				t.Errorf("a section ends inside an escape: …%q", b.Text.Text[len(b.Text.Text)-5:])
			}
		}
	}
	if joined.String() != RenderMrkdwn(text) || len(m.Blocks) < 3 {
		t.Errorf("%d blocks; the sections do not make the text", len(m.Blocks))
	}
}

// Once hermes has answered in a channel thread, a reply in that thread is
// meant for it without a mention; a thread it never answered in is not.
func TestRepliesInAnsweredThreadsAreAddressed(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a := fakeAdapter(t, srv)
	a.botUser = srv.BotUser
	parent := srv.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> hi"})
	ev := func(thread string) gateway.Event {
		e, _ := a.messageEvent([]byte(`{"type":"message","channel_type":"channel","channel":"` + slacktest.General + `","user":"UALICE","ts":"9.9","thread_ts":"` + thread + `","text":"and then?"}`))
		return e
	}
	if ev(parent).Addressed {
		t.Fatal("a reply in a thread hermes never answered in is addressed")
	}
	if _, err := a.Send(context.Background(), gateway.Chat{ID: slacktest.General, Type: gateway.Group, Thread: parent}, gateway.Outgoing{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if !ev(parent).Addressed {
		t.Error("a reply in the thread hermes answered in is not addressed")
	}
	if ev("1.000001").Addressed {
		t.Error("a reply in another thread is addressed")
	}
}

// A 429 holds the whole channel: a send to another thread of it fails as
// rate limited without calling Slack until the Retry-After has passed.
func TestRateLimitHoldsTheChannel(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	clk := clock.NewFake(time.Unix(1_800_000_000, 0))
	a, err := New(Options{BotToken: srv.BotToken, AppToken: srv.AppToken, BaseURL: srv.URL, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	one := srv.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> one"})
	two := srv.Message(slacktest.Incoming{Channel: slacktest.General, Text: "<@UHERMES> two"})
	in := func(thread string) gateway.Chat {
		return gateway.Chat{ID: slacktest.General, Type: gateway.Group, Thread: thread}
	}
	srv.RateLimit(slacktest.General, 3*time.Second)
	if _, err := a.Send(ctx, in(one), gateway.Outgoing{Text: "a"}); err == nil {
		t.Fatal("the 429 was not an error")
	}
	calls := len(srv.Calls("chat.postMessage"))
	_, err = a.Send(ctx, in(two), gateway.Outgoing{Text: "b"})
	var se *gateway.SendError
	if !errors.As(err, &se) || se.Kind != gateway.RateLimited || se.RetryAfter != 3*time.Second {
		t.Errorf("a send to another thread of the held channel: %v", err)
	}
	if n := len(srv.Calls("chat.postMessage")); n != calls {
		t.Errorf("%d calls to Slack while the channel was held", n-calls)
	}
	clk.Advance(3 * time.Second)
	if _, err := a.Send(ctx, in(two), gateway.Outgoing{Text: "b"}); err != nil {
		t.Errorf("after the Retry-After: %v", err)
	}
}
