package matrix

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

var room = gateway.Chat{ID: "!room:example.org", Type: gateway.DM}

// A 429 M_LIMIT_EXCEEDED is a rate limit with the server's wait, whether
// it says it in retry_after_ms, in Retry-After, or only by its errcode;
// it is never mistaken for a failure to give up on.
func TestSendRateLimitIsRateLimited(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter)
		wait   time.Duration
	}{
		{"retry_after_ms", status(429, "M_LIMIT_EXCEEDED", "Too many requests", `,"retry_after_ms":1500`), 1500 * time.Millisecond},
		{"Retry-After header", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3")
			status(429, "M_LIMIT_EXCEEDED", "slow down", "")(w)
		}, 3 * time.Second},
		{"errcode on another status", status(400, "M_LIMIT_EXCEEDED", "slow down", `,"retry_after_ms":20`), 20 * time.Millisecond},
		{"bare 429", status(429, "", "", ""), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			a := f.adapter(t, Options{})
			f.fail(c.answer)
			_, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "hi"})
			var se *gateway.SendError
			if !errors.As(err, &se) || se.Kind != gateway.RateLimited || se.RetryAfter != c.wait {
				t.Fatalf("err = %#v; want RateLimited, retry after %s", err, c.wait)
			}
			if _, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "hi"}); err != nil {
				t.Fatalf("the send after the wait: %v", err)
			}
		})
	}
}

// Each failure is classified by status and errcode: a lost answer and a
// 5xx are retried, anything else is not.
func TestSendFailureKinds(t *testing.T) {
	cases := []struct {
		answer func(w http.ResponseWriter)
		want   gateway.SendFailure
	}{
		{drop, gateway.Temporary},
		{status(502, "", "Bad Gateway", ""), gateway.Temporary},
		{status(403, "M_FORBIDDEN", "not in room", ""), gateway.Permanent},
		{status(413, "M_TOO_LARGE", "event too large", ""), gateway.Permanent},
		{status(400, "M_BAD_JSON", "bad", ""), gateway.Permanent},
	}
	for _, c := range cases {
		f := newFake(t)
		a := f.adapter(t, Options{})
		f.fail(c.answer)
		_, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "hi"})
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != c.want {
			t.Errorf("err = %v; want %s", err, c.want)
		}
	}
}

// A send whose answer was lost is retried under the same transaction id,
// so the homeserver answers with the event it already has instead of
// posting it twice; once a send succeeded, the same text sent again is a
// new message with a new id.
func TestSendRetryKeepsTransactionID(t *testing.T) {
	f := newFake(t)
	a := f.adapter(t, Options{})
	f.fail(drop, status(503, "", "Unavailable", ""))
	for i := 0; i < 3; i++ {
		_, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "same", ReplyTo: "$q"})
		if i < 2 && err == nil {
			t.Fatalf("send %d succeeded; want the scripted failure", i)
		}
		if i == 2 && err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "same", ReplyTo: "$q"}); err != nil {
		t.Fatal(err)
	}
	s := f.sent()
	if len(s) != 4 || s[0].Txn != s[1].Txn || s[1].Txn != s[2].Txn {
		t.Fatalf("sends = %+v; want three tries under one transaction id", s)
	}
	if s[3].Txn == s[2].Txn {
		t.Errorf("a new message reused the transaction id %s of the one before", s[3].Txn)
	}
	other := f.adapter(t, Options{})
	if _, err := other.Send(context.Background(), room, gateway.Outgoing{Text: "same"}); err != nil {
		t.Fatal(err)
	}
	if last := f.sent()[4].Txn; last == s[0].Txn || last == s[3].Txn {
		t.Errorf("another process's transaction id %s repeats this one's", last)
	}
}

// The token and password never appear in an error, even when the server
// echoes them.
func TestErrorsHideSecrets(t *testing.T) {
	f := newFake(t)
	a := f.adapter(t, Options{})
	f.fail(status(400, "M_UNKNOWN", "bad token "+fakeToken, ""))
	_, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "hi"})
	if err == nil || strings.Contains(err.Error(), fakeToken) {
		t.Errorf("err = %v; want an error without the token", err)
	}
	p, err := New(Options{Homeserver: "http://127.0.0.1:1", UserID: "@hermes:example.org", Password: "hunter2-password"})
	if err != nil {
		t.Fatal(err)
	}
	err = p.login(context.Background())
	if err == nil || strings.Contains(err.Error(), "hunter2-password") {
		t.Errorf("login err = %v; want an error without the password", err)
	}
}

// A reply is an m.in_reply_to of the message; an edit is an m.replace of
// the original with the "* " fallback and m.new_content.
func TestSendReplyAndEditShapes(t *testing.T) {
	f := newFake(t)
	a := f.adapter(t, Options{})
	ref, err := a.Send(context.Background(), room, gateway.Outgoing{Text: "answer", ReplyTo: "$question"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(context.Background(), ref, gateway.Outgoing{Text: "answer, longer"}); err != nil {
		t.Fatal(err)
	}
	s := f.sent()
	rel := s[0].Content["m.relates_to"].(map[string]any)["m.in_reply_to"].(map[string]any)
	if rel["event_id"] != "$question" || s[0].Content["msgtype"] != "m.text" {
		t.Errorf("reply content = %v", s[0].Content)
	}
	e := s[1].Content
	r := e["m.relates_to"].(map[string]any)
	nc := e["m.new_content"].(map[string]any)
	if e["body"] != "* answer, longer" || r["rel_type"] != "m.replace" || r["event_id"] != ref.ID || nc["body"] != "answer, longer" {
		t.Errorf("edit content = %v", e)
	}
}

// Text of markup reaches the homeserver as written and is counted as the
// server counts it: a message of MaxText bytes of < and & is sent, not
// refused as six times its size.
func TestSendMarkupAtTheLimit(t *testing.T) {
	f := newFake(t)
	a := f.adapter(t, Options{})
	text := strings.Repeat("<&>", MaxText/3)
	if Measure(text) != MaxText-MaxText%3 {
		t.Fatalf("Measure = %d", Measure(text))
	}
	ref, err := a.Send(context.Background(), room, gateway.Outgoing{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(context.Background(), ref, gateway.Outgoing{Text: text}); err != nil {
		t.Fatal(err)
	}
	if got := f.sent()[1].Content["m.new_content"].(map[string]any)["body"]; got != text {
		t.Error("the edit's text did not arrive as written")
	}
}
