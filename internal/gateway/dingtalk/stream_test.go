package dingtalk

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
)

// A robot message over Stream is delivered and acked by its messageId
// with 200; its redelivery (a new messageId, the same msgId) is acked
// too and carries the same event ID; a group message without the @ is
// not addressed.
func TestStreamDeliversAndAcks(t *testing.T) {
	f := newFixture(t, nil, "")
	events := f.receive(0)
	ctx := waitCtx(t)
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "hi", Nick: "Alice"})
	for range 2 {
		id, err := f.srv.Deliver(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		ack, err := f.srv.WaitAck(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ack.Code != 200 || ack.Message != "OK" || ack.Headers["contentType"] != "application/json" {
			t.Errorf("ack %+v", ack)
		}
		ev := next(t, events)
		if ev.ID != m.MsgID || ev.Text != "hi" || ev.User != (gateway.User{ID: "manager42", Name: "Alice"}) || ev.Chat.Type != gateway.DM {
			t.Errorf("event %+v", ev)
		}
	}
	g := f.srv.UserMessage(dingtalktest.Incoming{Text: "chatter", Group: "cidG"})
	if _, err := f.srv.Deliver(ctx, g); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); ev.Addressed || ev.Chat.Type != gateway.Group {
		t.Errorf("a group message without the @ was taken as addressed: %+v", ev)
	}
}

// A message the gateway could not take is acked 500, so DingTalk
// delivers it again.
func TestStreamNotTakenAcks500(t *testing.T) {
	f := newFixture(t, nil, "")
	f.receive(1)
	ctx := waitCtx(t)
	id, err := f.srv.Deliver(ctx, f.srv.UserMessage(dingtalktest.Incoming{Text: "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := f.srv.WaitAck(ctx, id); err != nil || ack.Code != 500 {
		t.Errorf("ack %+v, %v; want code 500", ack, err)
	}
}

// A message the gateway could not take, acked 500, comes again in a new
// frame and is delivered then; one acked 200 does not.
func TestStreamRedeliveredAfterRefusal(t *testing.T) {
	f := newFixtureOn(t, dingtalktest.Options{RedeliverAfter: 50 * time.Millisecond}, "")
	events := f.receive(1)
	ctx := waitCtx(t)
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "keep trying"})
	if _, err := f.srv.Deliver(ctx, m); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); ev.ID != m.MsgID {
		t.Errorf("event %+v", ev)
	}
	if err := f.srv.Wait(ctx, func() bool { return len(f.srv.Acks()) == 2 }); err != nil {
		t.Fatal(err)
	}
	if acks := f.srv.Acks(); acks[0].Code != 500 || acks[1].Code != 200 || f.srv.Redelivered() != 1 {
		t.Errorf("acks %+v after %d redeliveries", acks, f.srv.Redelivered())
	}
}

// A SYSTEM ping is answered with its data echoed.
func TestStreamAnswersPing(t *testing.T) {
	f := newFixture(t, nil, "")
	f.receive(0)
	ctx := waitCtx(t)
	if err := f.srv.WaitConnected(ctx, 1); err != nil {
		t.Fatal(err)
	}
	id, data, ok := f.srv.Ping(ctx)
	if !ok {
		t.Fatal("ping not pushed")
	}
	ack, err := f.srv.WaitAck(ctx, id)
	if err != nil || ack.Code != 200 || ack.Data != data {
		t.Errorf("ping ack %+v, %v; want data %q echoed", ack, err, data)
	}
}

// A SYSTEM disconnect and a dropped socket are both followed by a new
// connection with a new ticket, and messages flow on it.
func TestStreamReconnects(t *testing.T) {
	f := newFixture(t, nil, "")
	events := f.receive(0)
	ctx := waitCtx(t)
	if err := f.srv.WaitConnected(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if !f.srv.Disconnect(ctx) {
		t.Fatal("disconnect not pushed")
	}
	if err := f.srv.WaitConnected(ctx, 2); err != nil {
		t.Fatalf("no new connection after disconnect: %v", err)
	}
	f.srv.Drop()
	if err := f.srv.WaitConnected(ctx, 3); err != nil {
		t.Fatalf("no new connection after a drop: %v", err)
	}
	if connects, opens := f.srv.Connects(); opens != connects {
		t.Errorf("%d connections on %d tickets: each needs its own", connects, opens)
	}
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "still there?"})
	if _, err := f.srv.Deliver(ctx, m); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); ev.ID != m.MsgID {
		t.Errorf("event %+v", ev)
	}
}

// Wrong credentials end Receive with an error that says what to check
// and holds no secret.
func TestStreamRefusedCredentials(t *testing.T) {
	f := newFixture(t, nil, "")
	f.a.secret = "wrong-secret-value"
	err := f.a.Receive(waitCtx(t), func(ctx context.Context, ev gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "check client_id and client_secret") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("Receive = %v", err)
	}
}

// A Stream endpoint that cannot be reached is retried, and the error
// logged names its host, not the one-time ticket in its address.
func TestStreamDialErrorHidesTicket(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"endpoint":"ws://127.0.0.1:1/connect","ticket":"SECRET-TICKET-123"}`)
	}))
	t.Cleanup(api.Close)
	a, err := New(Options{ClientID: "x", ClientSecret: "y", BaseURL: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.stream(context.Background(), nil)
	if err == nil || strings.Contains(err.Error(), "SECRET-TICKET") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("stream = %v", err)
	}
}
