package telegram_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

func TestDirectMessageBecomesAnEventAndTheReplyReachesTheChat(t *testing.T) {
	h := newHarness(t)
	evs := h.events(t)
	msg, upd := h.srv.UserMessage(telegramtest.Incoming{Text: "hello *there*"})
	ev := next(t, evs)
	want := gateway.Event{ID: "1", Kind: gateway.KindMessage, Chat: gateway.Chat{ID: "42", Type: gateway.DM},
		User: gateway.User{ID: "42", Name: "@alice"}, Text: "hello *there*", Addressed: true, MessageID: "1", Received: h.clock.Now()}
	if ev.ID != want.ID || ev.Kind != want.Kind || ev.Chat != want.Chat || ev.User != want.User || ev.Text != want.Text ||
		!ev.Addressed || ev.MessageID != want.MessageID || !ev.Received.Equal(want.Received) || upd != 1 {
		t.Fatalf("event = %+v\nwant    %+v", ev, want)
	}
	if got := h.srv.AllowedUpdates(); !slices.Equal(got, []string{"message", "callback_query", "my_chat_member"}) {
		t.Errorf("allowed_updates = %v", got)
	}
	ref, err := h.tg.Send(ctxT(t), ev.Chat, gateway.Outgoing{Text: "**hi** <you> & me", ReplyTo: ev.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	sent := h.srv.Sent(42)
	if len(sent) != 1 || sent[0].Text != "hi <you> & me" || sent[0].Raw != "<b>hi</b> &lt;you&gt; &amp; me" ||
		sent[0].ReplyToMessage == nil || sent[0].ReplyToMessage.MessageID != msg.MessageID || ref.ID != "2" {
		t.Fatalf("sent %+v, ref %+v", sent, ref)
	}
	if err := h.tg.Edit(ctxT(t), ref, gateway.Outgoing{Text: "**hi** again"}); err != nil {
		t.Fatal(err)
	}
	if err := h.tg.Edit(ctxT(t), ref, gateway.Outgoing{Text: "**hi** again"}); err != nil {
		t.Fatalf("an edit that changes nothing: %v", err)
	}
	if sent := h.srv.Sent(42); sent[0].Text != "hi again" || sent[0].Edits != 1 {
		t.Fatalf("after edit: %+v", sent[0])
	}
}

func TestAnUpdateIsConfirmedOnlyAfterDeliverTookIt(t *testing.T) {
	h := newHarness(t)
	attempts := make(chan gateway.Event, 10)
	var refusals atomic.Int32
	refusals.Store(2)
	h.receive(t, func(_ context.Context, ev gateway.Event) error {
		attempts <- ev
		if ev.Text == "two" && refusals.Add(-1) >= 0 {
			return errors.New("store is down")
		}
		return nil
	})
	// "one" is taken, "two" refused twice: "one" is confirmed, "two" is
	// offered again after a backoff that grows.
	_, first := h.srv.UserMessage(telegramtest.Incoming{Text: "one"})
	_, secondID := h.srv.UserMessage(telegramtest.Incoming{Text: "two"})
	for _, want := range []string{"one", "two"} {
		if ev := next(t, attempts); ev.Text != want {
			t.Fatalf("got %q, want %q", ev.Text, want)
		}
	}
	h.clock.BlockUntil(1)
	if !strings.Contains(h.logs.String(), "will be offered again") || !strings.Contains(h.logs.String(), "retry_in=1s") {
		t.Errorf("log: %s", h.logs.String())
	}
	h.clock.Advance(second)
	if ev := next(t, attempts); ev.Text != "two" || ev.ID != "2" {
		t.Fatalf("second offer: %+v", ev)
	}
	if err := h.srv.WaitConfirmed(ctxT(t), first); err != nil {
		t.Fatal(err)
	}
	h.clock.BlockUntil(1)
	if !strings.Contains(h.logs.String(), "retry_in=2s") {
		t.Errorf("the backoff does not grow: %s", h.logs.String())
	}
	h.clock.Advance(2 * second)
	if ev := next(t, attempts); ev.Text != "two" {
		t.Fatalf("third offer: %+v", ev)
	}
	if err := h.srv.WaitConfirmed(ctxT(t), secondID); err != nil {
		t.Fatal(err)
	}
	h.srv.UserMessage(telegramtest.Incoming{Text: "three"})
	if ev := next(t, attempts); ev.Text != "three" {
		t.Fatalf("after confirmation, got %+v; a taken update came back", ev)
	}
}

func TestConflictBacksOffAndSaysWhy(t *testing.T) {
	h := newHarness(t)
	h.srv.SetWebhook("https://hooks.example.com/secret-path")
	evs := h.events(t)
	// At start the adapter removes the webhook that stops polling.
	if err := h.srv.Wait(ctxT(t), func() bool { return h.srv.CallCount("getUpdates") > 0 }); err != nil {
		t.Fatal(err)
	}
	if h.srv.Webhook() != "" || h.srv.CallCount("deleteWebhook") != 1 {
		t.Fatalf("webhook %q, deleteWebhook calls %d", h.srv.Webhook(), h.srv.CallCount("deleteWebhook"))
	}
	if strings.Contains(h.logs.String(), "secret-path") {
		t.Errorf("the webhook's path reached the log: %s", h.logs.String())
	}
	// Another program sets a webhook: polls get 409 and the adapter waits.
	h.srv.SetWebhook("https://other.example.com/")
	h.clock.BlockUntil(1)
	polls := h.srv.CallCount("getUpdates")
	if !strings.Contains(h.logs.String(), "another getUpdates poller or a webhook is active") {
		t.Errorf("log does not say why: %s", h.logs.String())
	}
	h.clock.Advance(second) // 1 s, then 2 s
	h.clock.BlockUntil(1)
	if got := h.srv.CallCount("getUpdates"); got != polls+1 {
		t.Fatalf("polls during the backoff: %d, want %d", got, polls+1)
	}
	h.srv.SetWebhook("")
	h.clock.Advance(2 * second)
	h.srv.UserMessage(telegramtest.Incoming{Text: "back"})
	if ev := next(t, evs); ev.Text != "back" {
		t.Fatalf("after the conflict: %+v", ev)
	}
}

func TestMediaFetch(t *testing.T) {
	h := newHarness(t)
	evs := h.events(t)
	photo := []byte(strings.Repeat("jpegdata", 10))
	h.srv.UserMessage(telegramtest.Incoming{Photo: photo, Caption: "look"})
	h.srv.UserMessage(telegramtest.Incoming{Document: &telegramtest.Upload{Name: "notes 1.txt", MIME: "text/plain", Data: []byte("notes")}})
	h.srv.UserMessage(telegramtest.Incoming{Voice: &telegramtest.Upload{Name: "v.oga", Data: []byte("OggS")}})
	h.srv.UserMessage(telegramtest.Incoming{Document: &telegramtest.Upload{Name: "huge.iso", Data: []byte("x"), Size: 20<<20 + 1}})

	ev := next(t, evs)
	if ev.Text != "look" || len(ev.Media) != 1 || ev.Media[0].Kind != "photo" || ev.Media[0].Size != int64(len(photo)) {
		t.Fatalf("photo event: %+v", ev)
	}
	if got := fetch(t, ev.Media[0]); string(got) != string(photo) {
		t.Fatalf("photo: got %q, want the largest size", got)
	}
	ev = next(t, evs)
	if m := ev.Media[0]; m.Kind != "document" || m.Name != "notes 1.txt" || m.MIME != "text/plain" || string(fetch(t, m)) != "notes" {
		t.Fatalf("document: %+v", ev.Media)
	}
	ev = next(t, evs)
	if m := ev.Media[0]; m.Kind != "voice" || m.MIME != "audio/ogg" || string(fetch(t, m)) != "OggS" {
		t.Fatalf("voice: %+v", ev.Media)
	}
	ev = next(t, evs)
	calls := h.srv.CallCount("getFile")
	if _, err := ev.Media[0].Fetch(ctxT(t)); err == nil || !strings.Contains(err.Error(), "at most 20971520 bytes") {
		t.Fatalf("a 20 MB + 1 file: %v", err)
	}
	if h.srv.CallCount("getFile") != calls {
		t.Errorf("getFile called for a file over the limit")
	}
}

func fetch(t *testing.T, m gateway.Media) []byte {
	t.Helper()
	r, err := m.Fetch(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestButtonPressBecomesAnEvent(t *testing.T) {
	h := newHarness(t)
	evs := h.events(t)
	ref, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "-100", Type: gateway.Group},
		gateway.Outgoing{Text: "Run `rm -rf build`?", Buttons: [][]gateway.Button{{{Text: "Once", Data: "a:7f3:once"}, {Text: "Deny", Data: "a:7f3:deny"}}}})
	if err != nil {
		t.Fatal(err)
	}
	bob := telegramtest.User{ID: 7, FirstName: "Bob"}
	h.srv.Press(-100, 1, bob, "a:7f3:once")
	ev := next(t, evs)
	if ev.Kind != gateway.KindButton || ev.Data != "a:7f3:once" || ev.Ref != ref || ev.User.ID != "7" || ev.User.Name != "Bob" || ev.Raw == "" || ev.Chat.Type != gateway.Group {
		t.Fatalf("press: %+v (ref %+v)", ev, ref)
	}
	if err := h.tg.Answer(ctxT(t), ev, "Approved once"); err != nil {
		t.Fatal(err)
	}
	if a := h.srv.Answers(); len(a) != 1 || a[0].ID != ev.Raw || a[0].Text != "Approved once" {
		t.Fatalf("answers: %+v", a)
	}
	if err := h.tg.Edit(ctxT(t), ref, gateway.Outgoing{Text: "Approved once by Bob"}); err != nil {
		t.Fatal(err)
	}
	if m := h.srv.Sent(-100)[0]; m.ReplyMarkup != nil {
		t.Fatalf("the decision edit kept the buttons: %+v", m.ReplyMarkup)
	}
}

// A poll answered with flood control waits the retry_after it names, not
// the shorter backoff.
func TestRateLimitedPollWaitsRetryAfter(t *testing.T) {
	h := newHarness(t)
	target, _ := url.Parse(h.srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var limited atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/getUpdates") && limited.CompareAndSwap(false, true) {
			w.WriteHeader(429)
			_, _ = io.WriteString(w, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 30","parameters":{"retry_after":30}}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close) // after Receive ends, which the harness sees to
	tg, err := telegram.New(telegram.Options{Token: h.srv.Token, BaseURL: front.URL, Clock: h.clock,
		Logger: slog.New(slog.NewTextHandler(h.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h.tg = tg
	evs := h.events(t)
	h.clock.BlockUntil(1)
	if !strings.Contains(h.logs.String(), "retry_in=30s") {
		t.Fatalf("the wait is not the 30 s asked for: %s", h.logs.String())
	}
	h.clock.Advance(29 * second)
	if n := h.srv.CallCount("getUpdates"); n != 0 {
		t.Fatalf("polled %d times before retry_after passed", n)
	}
	h.clock.Advance(second)
	h.srv.UserMessage(telegramtest.Incoming{Text: "after the wait"})
	if ev := next(t, evs); ev.Text != "after the wait" {
		t.Fatalf("event %+v", ev)
	}
}
