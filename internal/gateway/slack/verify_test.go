package slack

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
)

// Slack's published example of a signed request (PLATFORMS.md §10).
func TestSignatureKnownAnswer(t *testing.T) {
	body := "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	const secret, ts = "8f742231b10e8888abcd99yyyzzz85a5", "1531420618"
	const want = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
	if got := Signature(secret, ts, []byte(body)); got != want {
		t.Fatalf("Signature = %s, want %s", got, want)
	}
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", want)
	if err := verify(secret, h, []byte(body), time.Unix(1531420618+60, 0)); err != nil {
		t.Errorf("the published example does not verify: %v", err)
	}
}

// Every forged, altered or replayed request is refused, and no error
// shows the secret or the signature expected.
func TestVerifyRefusesForgeries(t *testing.T) {
	const secret = "s3cret-signing-value"
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"type":"event_callback","event":{"type":"message","text":"hi"}}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := Signature(secret, ts, body)
	for name, c := range map[string]struct {
		ts, sig string
		body    []byte
	}{
		"no headers":           {"", "", body},
		"no signature":         {ts, "", body},
		"other secret":         {ts, Signature("other", ts, body), body},
		"altered body":         {ts, good, append([]byte(nil), append(body, ' ')...)},
		"other timestamp":      {strconv.FormatInt(now.Unix()-1, 10), good, body},
		"replayed after 5 min": {strconv.FormatInt(now.Unix()-301, 10), Signature(secret, strconv.FormatInt(now.Unix()-301, 10), body), body},
		"from the future":      {strconv.FormatInt(now.Unix()+301, 10), Signature(secret, strconv.FormatInt(now.Unix()+301, 10), body), body},
		"no v0 prefix":         {ts, strings.TrimPrefix(good, "v0="), body},
		"v1 scheme":            {ts, "v1=" + strings.TrimPrefix(good, "v0="), body},
		"truncated":            {ts, good[:40], body},
		"not hex":              {ts, "v0=" + strings.Repeat("zz", 32), body},
		"timestamp in ms":      {strconv.FormatInt(now.UnixMilli(), 10), Signature(secret, strconv.FormatInt(now.UnixMilli(), 10), body), body},
	} {
		h := http.Header{}
		h.Set("X-Slack-Request-Timestamp", c.ts)
		h.Set("X-Slack-Signature", c.sig)
		err := verify(secret, h, c.body, now)
		if err == nil {
			t.Errorf("%s: verified", name)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), strings.TrimPrefix(good, "v0=")) {
			t.Errorf("%s: the error shows a secret: %v", name, err)
		}
	}
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix()-299, 10))
	h.Set("X-Slack-Signature", Signature(secret, strconv.FormatInt(now.Unix()-299, 10), body))
	if err := verify(secret, h, body, now); err != nil {
		t.Errorf("a request 299 s old was refused: %v", err)
	}
}

// httpAdapter is an adapter in Events API mode against srv, receiving
// into the returned channel.
func httpAdapter(t *testing.T, srv *slacktest.Server, clk clock.Clock) (*Adapter, http.Handler, chan gateway.Event) {
	t.Helper()
	a, err := New(Options{BotToken: srv.BotToken, SigningSecret: srv.SigningSecret, BaseURL: srv.URL, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	path, h := a.WebhookHandler()
	if path != DefaultEventsPath || h == nil {
		t.Fatalf("WebhookHandler = %q, %v", path, h)
	}
	got := make(chan gateway.Event, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Receive(ctx, func(_ context.Context, ev gateway.Event) error { got <- ev; return nil })
	}()
	t.Cleanup(func() { cancel(); <-done })
	// Receive is taking posts once a signed one is not refused with 503.
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := httptest.NewRecorder()
		body := []byte(`{"type":"event_callback","event":{"type":"reaction_added"}}`)
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
		req.Header = srv.Sign(body)
		h.ServeHTTP(rec, req)
		if rec.Code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the events handler answers %d", rec.Code)
		}
		runtime.Gosched() // Receive sets itself up after auth.test
	}
	return a, h, got
}

// Over HTTP: the url_verification challenge is answered, a signed event
// and a signed form-encoded press are delivered, and forged posts are
// refused with 401 before they are read.
func TestEventsAPIOverHTTP(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a, h, got := httpAdapter(t, srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	srv.SetEventsURL(ts.URL)
	if ok, err := srv.Verify(context.Background()); !ok || err != nil {
		t.Fatalf("url_verification: %v %v", ok, err)
	}
	msgTS := srv.Message(slacktest.Incoming{Text: "hello & <you>"})
	ev := <-got
	if ev.Kind != gateway.KindMessage || ev.Text != "hello & <you>" || ev.ID != "msg:"+slacktest.AliceDM+":"+msgTS || ev.Chat.Type != gateway.DM || !ev.Addressed {
		t.Errorf("event %+v", ev)
	}

	// A press comes form-encoded, signed like an event.
	dm := gateway.Chat{ID: slacktest.AliceDM, Type: gateway.DM}
	ref, err := a.Send(context.Background(), dm, gateway.Outgoing{Text: "ok?", Buttons: [][]gateway.Button{{{Text: "Yes", Data: "ap:0123456789ab:o"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Press(dm.ID, ref.ID, slacktest.Alice, "ap:0123456789ab:o"); err != nil {
		t.Fatal(err)
	}
	if ev := <-got; ev.Kind != gateway.KindButton || ev.Data != "ap:0123456789ab:o" || ev.Ref != ref || ev.User.ID != slacktest.Alice {
		t.Errorf("press %+v", ev)
	}

	post := func(body, contentType string, h http.Header) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+DefaultEventsPath, strings.NewReader(body))
		for k, v := range h {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	forged := `{"type":"event_callback","event_id":"Ev9","event":{"type":"message","user":"UALICE","channel":"DALICE","channel_type":"im","ts":"1.2","text":"forged"}}`
	other := slacktest.New(slacktest.Options{})
	other.SigningSecret = "not-the-secret"
	defer other.Close()
	stale := http.Header{}
	stale.Set("X-Slack-Request-Timestamp", strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10))
	stale.Set("X-Slack-Signature", Signature(srv.SigningSecret, stale.Get("X-Slack-Request-Timestamp"), []byte(forged)))
	form := "payload=" + url.QueryEscape(`{"type":"block_actions","user":{"id":"UMALLORY"},"channel":{"id":"DALICE"},"message":{"ts":"1.1"},"actions":[{"value":"ap:000000000000:o"}]}`)
	for name, code := range map[string]int{
		"unsigned":        post(forged, "application/json", nil),
		"other secret":    post(forged, "application/json", other.Sign([]byte(forged))),
		"replayed":        post(forged, "application/json", stale),
		"signed other":    post(forged, "application/json", srv.Sign([]byte(forged+" "))),
		"unsigned press":  post(form, "application/x-www-form-urlencoded", nil),
		"challenge forge": post(`{"type":"url_verification","challenge":"x"}`, "application/json", nil),
	} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	select {
	case ev := <-got:
		t.Errorf("a forged post was delivered: %+v", ev)
	default:
	}
}
