package dingtalk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
)

// inbound has the adapter take m as if it had arrived.
func (f *fixture) inbound(m dingtalktest.Message) gateway.Event {
	raw, _ := json.Marshal(m)
	ev, ok := f.a.event(raw)
	if !ok {
		f.t.Fatalf("message %+v not taken", m)
	}
	return ev
}

func sendErr(t *testing.T, err error) *gateway.SendError {
	t.Helper()
	var se *gateway.SendError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *gateway.SendError", err)
	}
	return se
}

// A reply goes through the chat's sessionWebhook while it lasts, and
// through the robot API after (batchSend to a person, groupMessages/send
// to a group), as Markdown with a title.
func TestSendSessionThenRobotAPI(t *testing.T) {
	clk := clock.NewFake(time.Now())
	f := newFixture(t, clk, "")
	ctx := context.Background()
	ev := f.inbound(f.srv.UserMessage(dingtalktest.Incoming{Text: "hi", SessionTTL: time.Minute}))
	if _, err := f.a.Send(ctx, ev.Chat, gateway.Outgoing{Text: "## Done\n\n**all** good"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if _, err := f.a.Send(ctx, ev.Chat, gateway.Outgoing{Text: "later"}); err != nil {
		t.Fatal(err)
	}
	got := f.srv.Sent("manager42")
	if len(got) != 2 || got[0].Via != "session" || got[0].Title != "Done" || got[0].Text != "## Done\n\n**all** good" || got[1].Via != "api" || got[1].Text != "later" {
		t.Errorf("sent %+v", got)
	}
	g := f.inbound(f.srv.UserMessage(dingtalktest.Incoming{Text: "hi", Group: "cidTEAM", AtBot: true, SessionTTL: -1}))
	if _, err := f.a.Send(ctx, g.Chat, gateway.Outgoing{Text: "to the team"}); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.Sent("cidTEAM"); len(got) != 1 || got[0].Via != "api" {
		t.Errorf("group sent %+v", got)
	}
}

// A sessionWebhook that points anywhere but DingTalk is not posted to:
// the reply goes through the robot API.
func TestSendIgnoresForeignSessionWebhook(t *testing.T) {
	f := newFixture(t, nil, "")
	for _, hook := range []string{"http://169.254.169.254/latest", "https://evil.example/dingtalk.com", "https://dingtalk.com.evil.example/x", "ftp://oapi.dingtalk.com/x", "https://user:pw@oapi.dingtalk.com/x"} {
		if f.a.routes.trusted(hook) {
			t.Errorf("%q is trusted", hook)
		}
	}
	if !f.a.routes.trusted("https://oapi.dingtalk.com/robot/sendBySession?session=abc") {
		t.Error("DingTalk's own sessionWebhook is not trusted")
	}
	ev := f.inbound(f.srv.UserMessage(dingtalktest.Incoming{Text: "hi", SessionWebhook: "http://127.0.0.2:1/steal"}))
	if _, err := f.a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "answer"}); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.Sent("manager42"); len(got) != 1 || got[0].Via != "api" {
		t.Errorf("sent %+v", got)
	}
}

// errcode 130101 on HTTP 200 is a rate limit that holds every send of
// the robot, its wait doubling while refusals go on; the robot's own
// budget of 20 a minute over all chats refuses the 21st before it
// reaches DingTalk.
func TestSendRateLimits(t *testing.T) {
	clk := clock.NewFake(time.Now())
	f := newFixture(t, clk, "")
	ctx := context.Background()
	dm := gateway.Chat{ID: "manager42", Type: gateway.DM}
	f.srv.RateLimitNext(2)
	_, err := f.a.Send(ctx, dm, gateway.Outgoing{Text: "one"})
	if se := sendErr(t, err); se.Kind != gateway.RateLimited || se.RetryAfter != 2*time.Second || !strings.Contains(se.Error(), "130101") {
		t.Errorf("first refusal: %v", se)
	}
	_, err = f.a.Send(ctx, gateway.Chat{ID: "other", Type: gateway.DM}, gateway.Outgoing{Text: "other chat"})
	if se := sendErr(t, err); se.Kind != gateway.RateLimited || f.srv.Refused() != 1 {
		t.Errorf("another chat was sent to during the hold: %v, %d refused", se, f.srv.Refused())
	}
	clk.Advance(2 * time.Second)
	_, err = f.a.Send(ctx, dm, gateway.Outgoing{Text: "one"})
	if se := sendErr(t, err); se.Kind != gateway.RateLimited || se.RetryAfter != 4*time.Second {
		t.Errorf("second refusal: %v", se)
	}
	clk.Advance(4 * time.Second)
	if _, err := f.a.Send(ctx, dm, gateway.Outgoing{Text: "one"}); err != nil {
		t.Fatal(err)
	}
	for i := range PerMinute - 3 {
		if _, err := f.a.Send(ctx, gateway.Chat{ID: "u" + string(rune('a'+i)), Type: gateway.DM}, gateway.Outgoing{Text: "x"}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	_, err = f.a.Send(ctx, dm, gateway.Outgoing{Text: "one too many"})
	if se := sendErr(t, err); se.Kind != gateway.RateLimited || se.RetryAfter <= 0 || se.RetryAfter > time.Minute {
		t.Errorf("the 21st send of the minute: %v", se)
	}
	if n := f.srv.Refused(); n != 2 {
		t.Errorf("DingTalk refused %d sends; the budget should have kept the 21st from it", n)
	}
	clk.Advance(time.Minute)
	if _, err := f.a.Send(ctx, dm, gateway.Outgoing{Text: "one too many"}); err != nil {
		t.Errorf("after the minute: %v", err)
	}
}

// The access token is fetched once and kept until near its expiry; a
// token DingTalk refuses is dropped and the send retried as temporary.
func TestSendTokenCachedAndRenewed(t *testing.T) {
	clk := clock.NewFake(time.Now())
	f := newFixture(t, clk, "")
	ctx := context.Background()
	first, err := f.a.tokens.get(ctx, f.a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := f.a.tokens.get(ctx, f.a); again != first {
		t.Error("the token was fetched again before it expired")
	}
	clk.Advance(7200*time.Second - tokenEarly + time.Second)
	if renewed, _ := f.a.tokens.get(ctx, f.a); renewed == first {
		t.Error("the token was not renewed before it expired")
	}
	f.a.tokens.mu.Lock()
	f.a.tokens.token = "revoked"
	f.a.tokens.mu.Unlock()
	_, err = f.a.Send(ctx, gateway.Chat{ID: "manager42", Type: gateway.DM}, gateway.Outgoing{Text: "x"})
	if se := sendErr(t, err); se.Kind != gateway.Temporary {
		t.Errorf("a refused token: %v", se)
	}
	if _, err := f.a.Send(ctx, gateway.Chat{ID: "manager42", Type: gateway.DM}, gateway.Outgoing{Text: "x"}); err != nil {
		t.Errorf("the retry with a new token: %v", err)
	}
}

// Errors inside 200 answers and the API's own are classified: an
// expired session falls back to the API, a wrong robot is permanent.
func TestSendErrorsClassified(t *testing.T) {
	clk := clock.NewFake(time.Now())
	f := newFixture(t, clk, "")
	ctx := context.Background()
	ev := f.inbound(f.srv.UserMessage(dingtalktest.Incoming{Text: "hi", SessionTTL: time.Hour}))
	f.srv.ExpireSessions()
	if _, err := f.a.Send(ctx, ev.Chat, gateway.Outgoing{Text: "fallback"}); err != nil {
		t.Fatalf("an expired session did not fall back to the API: %v", err)
	}
	if got := f.srv.Sent("manager42"); len(got) != 1 || got[0].Via != "api" {
		t.Errorf("sent %+v", got)
	}
	f.a.robot = "someone-else"
	_, err := f.a.Send(ctx, ev.Chat, gateway.Outgoing{Text: "x"})
	if se := sendErr(t, err); se.Kind != gateway.Permanent || !strings.Contains(se.Error(), "robot.notExist") {
		t.Errorf("a wrong robot: %v", se)
	}
}

// A reply of exactly 20000 bytes of multi-byte text goes as one message;
// one byte more is refused before it is sent; attachments are named.
func TestSendLimitInBytes(t *testing.T) {
	f := newFixture(t, nil, "")
	ctx := context.Background()
	dm := gateway.Chat{ID: "manager42", Type: gateway.DM}
	full := strings.Repeat("钉", MaxText/3) + "ab"
	if len(full) != MaxText {
		t.Fatalf("%d bytes", len(full))
	}
	if _, err := f.a.Send(ctx, dm, gateway.Outgoing{Text: full}); err != nil {
		t.Fatal(err)
	}
	_, err := f.a.Send(ctx, dm, gateway.Outgoing{Text: full + "c"})
	if se := sendErr(t, err); se.Kind != gateway.Permanent || !strings.Contains(se.Error(), "20001 bytes") {
		t.Errorf("one byte over: %v", se)
	}
	if _, err := f.a.Send(ctx, dm, gateway.Outgoing{Files: []string{"/tmp/x/report.pdf"}}); err != nil {
		t.Fatal(err)
	}
	got := f.srv.Sent("manager42")
	if len(got) != 2 || !strings.Contains(got[1].Text, "report.pdf") || strings.Contains(got[1].Text, "/tmp/x") {
		t.Errorf("sent %+v", got)
	}
	if c := f.a.Caps(); c.MaxText != MaxText || c.Measure == nil || c.Measure("钉") != 3 || c.CanEdit || c.Buttons {
		t.Errorf("caps %+v", c)
	}
}
