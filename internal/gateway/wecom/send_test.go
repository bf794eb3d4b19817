package wecom_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

var alice = gateway.Chat{ID: "alice", Type: gateway.DM}

func sendErr(t *testing.T, err error) *gateway.SendError {
	t.Helper()
	var se *gateway.SendError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *gateway.SendError", err, err)
	}
	return se
}

// The access token is fetched once and shared by every send until it
// expires; an expired or invalid token is fetched again and the send
// tried once more.
func TestSendCachesAndRefreshesToken(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	for _, text := range []string{"one", "two"} {
		if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.srv.CallCount("/cgi-bin/gettoken"); n != 1 {
		t.Errorf("%d gettoken calls for two sends, want 1", n)
	}
	r.srv.ExpireTokens()
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "three"}); err != nil {
		t.Fatalf("a send after the token expired: %v", err)
	}
	r.srv.FailNext(40014)
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "four"}); err != nil {
		t.Fatalf("a send after the token was invalidated: %v", err)
	}
	if n := r.srv.CallCount("/cgi-bin/gettoken"); n != 3 {
		t.Errorf("%d gettoken calls, want 3", n)
	}
	// Only one retry: a token refused twice is an error, not a loop.
	r.srv.FailNext(42001, 42001)
	_, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "five"})
	if se := sendErr(t, err); se.Kind != gateway.Temporary {
		t.Errorf("a token refused twice: %v", se)
	}
	r.clock.Advance(2 * time.Hour) // past expires_in: fetched again before a send
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "six"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.srv.Sent("alice") {
		got = append(got, m.Content)
	}
	if strings.Join(got, ",") != "one,two,three,four,six" {
		t.Errorf("sent %q", got)
	}
}

// Errcodes in 200 answers are failures, classified by code: rate limits
// wait (longer while they go on), busy retries, the trusted-IP refusal
// is permanent and the log says how to fix it. Nothing is "delivered"
// that was not.
func TestSendClassifiesErrcodes(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	r.srv.FailNext(45009, 45009, 45033, -1, 60020, 40003)
	var waits []time.Duration
	for range 3 {
		_, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"})
		se := sendErr(t, err)
		if se.Kind != gateway.RateLimited {
			t.Fatalf("rate limit classified %v", se)
		}
		waits = append(waits, se.RetryAfter)
	}
	if !(waits[0] > 0 && waits[1] > waits[0] && waits[2] > waits[1]) {
		t.Errorf("rate-limit waits %v do not grow", waits)
	}
	for _, c := range []struct {
		code int
		want gateway.SendFailure
	}{{-1, gateway.Temporary}, {60020, gateway.Permanent}, {40003, gateway.Permanent}} {
		code, want := c.code, c.want
		_, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"})
		if se := sendErr(t, err); se.Kind != want || !strings.Contains(se.Error(), "errcode") {
			t.Errorf("errcode %d: %v, want %v", code, se, want)
		}
	}
	if !strings.Contains(r.log.String(), "Trusted IP") {
		t.Errorf("60020 logged no setup hint:\n%s", r.log.String())
	}
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	r.srv.FailNext(45009)
	_, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"})
	if se := sendErr(t, err); se.RetryAfter != waits[0] {
		t.Errorf("after a success the wait starts again: %v, want %v", se.RetryAfter, waits[0])
	}
	if n := len(r.srv.Sent("alice")); n != 1 {
		t.Errorf("%d messages delivered, want 1", n)
	}
}

// The limit is 2048 UTF-8 bytes: 682 CJK characters fit, 683 do not, and
// text that does not fit is refused, never cut.
func TestSendByteLimit(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	fits := strings.Repeat("汉", 682) + "ab"
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: fits}); err != nil {
		t.Fatalf("2048 bytes: %v", err)
	}
	_, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: strings.Repeat("汉", 683)})
	if se := sendErr(t, err); se.Kind != gateway.Permanent || !strings.Contains(se.Message, "2049 bytes") {
		t.Errorf("2049 bytes: %v", se)
	}
	if r.app.Caps().MaxText != wecomtest.MaxText || r.app.Caps().Measure != nil || r.app.Caps().CanEdit || r.app.Caps().Buttons {
		t.Errorf("caps %+v", r.app.Caps())
	}
	parts := gateway.Split(strings.Repeat("汉字", 1500), r.app.Caps().MaxText, r.app.Caps().Measure)
	for _, p := range parts {
		if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: p}); err != nil {
			t.Fatalf("a split part of %d bytes: %v", len(p), err)
		}
	}
	var whole strings.Builder
	for _, m := range r.srv.Sent("alice")[1:] {
		whole.WriteString(m.Content)
	}
	if whole.String() != strings.Repeat("汉字", 1500) {
		t.Errorf("the split text did not arrive whole (%d bytes of %d)", whole.Len(), 9000)
	}
}

// Neither the secret nor the access token reaches an error or the log,
// also when the API cannot be reached.
func TestSecretsStayOutOfErrorsAndLogs(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	if _, err := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	r.srv.DenyIP(true)
	r.srv.ExpireTokens()
	_, err1 := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"})
	r.srv.Close()
	_, err2 := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"}) // message/send unreachable
	r.clock.Advance(3 * time.Hour)
	_, err3 := r.app.Send(ctx, alice, gateway.Outgoing{Text: "x"}) // gettoken unreachable
	for _, err := range []error{err1, err2, err3} {
		if err == nil {
			t.Fatal("a send succeeded")
		}
		for _, secret := range []string{r.srv.Secret, "tok-"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error holds a secret: %v", err)
			}
		}
	}
	if strings.Contains(r.log.String(), r.srv.Secret) || strings.Contains(r.log.String(), "tok-") {
		t.Errorf("the log holds a secret:\n%s", r.log.String())
	}
}

// hermes gateway status: the app's check proves the credentials, the
// agent id and the trusted IP, saying which is wrong.
func TestAppCheck(t *testing.T) {
	r := newAppRig(t, time.Now())
	ctx := context.Background()
	who, err := r.app.Check(ctx)
	if err != nil || !strings.Contains(who, `"hermes"`) || !strings.Contains(who, "/wecom") {
		t.Errorf("check: %q, %v", who, err)
	}
	r.srv.DenyIP(true)
	r.srv.ExpireTokens()
	r.clock.Advance(3 * time.Hour)
	if _, err := r.app.Check(ctx); err == nil || !strings.Contains(err.Error(), "Trusted IP") {
		t.Errorf("untrusted IP: %v", err)
	}
	wrong, err := wecom.NewApp(wecom.AppOptions{CorpID: r.srv.CorpID, AgentID: 7, Secret: r.srv.Secret,
		Token: r.srv.Token, EncodingAESKey: r.srv.EncodingAESKey, BaseURL: r.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r.srv.DenyIP(false)
	if _, err := wrong.Check(ctx); err == nil || !strings.Contains(err.Error(), "agent_id") {
		t.Errorf("a wrong agent id: %v", err)
	}
}

// Files a reply would attach are named, since WeCom text carries none; a
// message of files alone still says so.
func TestSendNamesFiles(t *testing.T) {
	r := newAppRig(t, time.Now())
	if _, err := r.app.Send(context.Background(), alice, gateway.Outgoing{Files: []string{"/tmp/x/report.pdf"}}); err != nil {
		t.Fatal(err)
	}
	if s := r.srv.Sent("alice"); len(s) != 1 || !strings.Contains(s[0].Content, "report.pdf") || strings.Contains(s[0].Content, "/tmp/x") {
		t.Errorf("sent %+v", s)
	}
}
