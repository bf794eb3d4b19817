package wecom_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

// WeCom's published URL-verification example, answered by the handler:
// the plaintext alone, no quotes or newline.
func TestURLVerificationKnownAnswer(t *testing.T) {
	app, err := wecom.NewApp(wecom.AppOptions{CorpID: "wx5823bf96d3bd56c7", AgentID: 1, Secret: "s",
		Token: "QDG6eK", EncodingAESKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C",
		Clock: clock.NewFake(time.Unix(1409659589, 0)), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	_, h := app.WebhookHandler()
	q := url.Values{"msg_signature": {"5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3"}, "timestamp": {"1409659589"},
		"nonce": {"263014780"}, "echostr": {"P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ=="}}
	for name, raw := range map[string]string{
		"escaped": q.Encode(),
		// A "+" left unescaped reads as a space; it must still verify.
		"raw plus": strings.ReplaceAll(q.Encode(), "%2B", "+"),
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/wecom?"+raw, nil))
		if rec.Code != 200 || rec.Body.String() != "1616140317555161061" {
			t.Errorf("%s: %d %q, want 200 1616140317555161061", name, rec.Code, rec.Body.String())
		}
	}
	q.Set("msg_signature", "5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd4")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/wecom?"+q.Encode(), nil))
	if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "1616140317555161061") {
		t.Errorf("a wrong signature got %d %q", rec.Code, rec.Body.String())
	}
}

// A message WeCom posts is answered "success" at once and delivered
// with MsgId as its id; its retry has the same id.
func TestCallbackDeliversTextMessage(t *testing.T) {
	r := newAppRig(t, time.Now())
	id, err := r.srv.UserMessage(context.Background(), wecomtest.Incoming{From: "zhangsan", Text: "你好 <b>&amp; ]]> hermes"})
	if err != nil {
		t.Fatal(err)
	}
	ev := r.next(t)
	want := gateway.Event{ID: "msg:" + id, Kind: gateway.KindMessage, Chat: gateway.Chat{ID: "zhangsan", Type: gateway.DM},
		User: gateway.User{ID: "zhangsan", Name: "zhangsan"}, Text: "你好 <b>&amp; ]]> hermes", Addressed: true, MessageID: id}
	ev.Received = time.Time{}
	if ev.ID != want.ID || ev.Chat != want.Chat || ev.User != want.User || ev.Text != want.Text || !ev.Addressed || ev.MessageID != id {
		t.Errorf("event %+v\nwant  %+v", ev, want)
	}
	if err := r.srv.Redeliver(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if again := r.next(t); again.ID != ev.ID {
		t.Errorf("the retry has id %q, the first %q: the gateway could not drop it", again.ID, ev.ID)
	}
}

// Forged and damaged callbacks: each is refused before anything in it is
// believed, and none is delivered.
func TestCallbackRefusesForgeries(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	good := func(plain string) wecomtest.Sealed {
		s, err := r.srv.Seal(plain)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	msg := func(text string) string {
		return r.srv.MessageXML(wecomtest.Incoming{From: "mallory", Text: text, MsgID: "1"})
	}
	foreign := wecomtest.New(wecomtest.Options{CorpID: "wwforeigncorp", Clock: r.clock})
	defer foreign.Close()
	otherKey := wecomtest.New(wecomtest.Options{CorpID: r.srv.CorpID, EncodingAESKey: strings.Repeat("b", 43), Clock: r.clock})
	defer otherKey.Close()
	otherAgent := wecomtest.New(wecomtest.Options{AgentID: 1000099, Clock: r.clock})
	defer otherAgent.Close()
	seal := func(s *wecomtest.Server, plain string) wecomtest.Sealed {
		sealed, err := s.Seal(plain)
		if err != nil {
			t.Fatal(err)
		}
		return sealed
	}
	cases := map[string]struct {
		sealed wecomtest.Sealed
		want   int
	}{}
	add := func(name string, s wecomtest.Sealed, want int) {
		cases[name] = struct {
			sealed wecomtest.Sealed
			want   int
		}{s, want}
	}
	bad := good(msg("bad signature"))
	bad.Query.Set("msg_signature", strings.Repeat("0", 40))
	add("bad signature", bad, 403)
	nosig := good(msg("no signature"))
	nosig.Query.Del("msg_signature")
	add("no signature", nosig, 403)
	old := good(msg("replayed later"))
	old.Query.Set("timestamp", "1409659589")
	add("timestamp changed after signing", old, 403)
	past := wecomtest.New(wecomtest.Options{Clock: clock.NewFake(r.clock.Now().Add(-10 * time.Minute))})
	defer past.Close()
	add("signed ten minutes ago", seal(past, msg("replayed later")), 403)
	future := wecomtest.New(wecomtest.Options{Clock: clock.NewFake(r.clock.Now().Add(10 * time.Minute))})
	defer future.Close()
	add("signed ten minutes ahead", seal(future, msg("from the future")), 403)
	nots := good(msg("no timestamp"))
	nots.Query.Del("timestamp")
	add("no timestamp", nots, 403)
	swapped := good(msg("swapped body"))
	swapped.XML = good(msg("another body")).XML
	add("body of another request", swapped, 403)
	add("sealed for another corp", seal(foreign, msg("foreign")), 403)
	add("sealed with another key", seal(otherKey, msg("other key")), 403)
	otherMsg := otherAgent.MessageXML(wecomtest.Incoming{From: "mallory", Text: "other agent", MsgID: "2"})
	add("for another agent", seal(r.srv, otherMsg), 403)
	dtd := good(`<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY x "boom">]><xml><ToUserName>` + r.srv.CorpID +
		`</ToUserName><FromUserName>mallory</FromUserName><MsgType>text</MsgType><Content>&x;</Content><MsgId>3</MsgId></xml>`)
	add("DTD inside the signed message", dtd, 400)
	outerDTD := good(msg("outer dtd"))
	outerDTD.XML = `<!DOCTYPE xml SYSTEM "file:///etc/passwd">` + outerDTD.XML
	add("DTD in the envelope", outerDTD, 400)
	huge := good(msg("huge"))
	huge.XML = strings.Replace(huge.XML, "</xml>", strings.Repeat(" ", 70<<10)+"</xml>", 1)
	add("oversized body", huge, 413)
	notXML := good(msg("x"))
	notXML.XML = `{"encrypt":"x"}`
	add("not XML", notXML, 400)
	for name, c := range cases {
		status, body, err := r.srv.Post(ctx, c.sealed.Query, c.sealed.XML)
		if err != nil {
			t.Fatal(err)
		}
		if status != c.want || body == "success" {
			t.Errorf("%s: %d %q, want %d", name, status, body, c.want)
		}
	}
	r.none(t)
	for _, secret := range []string{r.srv.Token, r.srv.EncodingAESKey, r.srv.Secret} {
		if strings.Contains(r.log.String(), secret) {
			t.Errorf("a secret is in the log:\n%s", r.log.String())
		}
	}
	if !strings.Contains(r.log.String(), "callback was refused") {
		t.Errorf("the refusals were not logged:\n%s", r.log.String())
	}
}

// A GET with a wrong signature, or from the past, is refused too.
func TestURLVerificationRefusesForgeries(t *testing.T) {
	r := newAppRig(t, time.Now())
	past := wecomtest.New(wecomtest.Options{Clock: clock.NewFake(r.clock.Now().Add(-10 * time.Minute))})
	defer past.Close()
	past.SetCallback(r.url)
	if err := past.VerifyURL(context.Background()); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a stale verification: %v", err)
	}
	forged := wecomtest.New(wecomtest.Options{Token: "not-the-token", Clock: r.clock})
	defer forged.Close()
	forged.SetCallback(r.url)
	if err := forged.VerifyURL(context.Background()); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a verification signed with another token: %v", err)
	}
	if err := r.srv.VerifyURL(context.Background()); err != nil {
		t.Error(err)
	}
}
