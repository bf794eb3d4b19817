package dingtalk

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/dingtalk/dingtalktest"
)

// httpFixture serves the adapter's callback handler and returns its URL.
func httpFixture(t *testing.T) (*fixture, string) {
	f := newFixture(t, nil, "/dingtalk")
	path, h := f.a.WebhookHandler()
	if path != "/dingtalk" || h == nil {
		t.Fatalf("WebhookHandler = %q, %v", path, h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return f, hs.URL + path
}

// A signed callback is delivered as an event; a retried one is delivered
// with the same ID, which the gateway answers once.
func TestCallbackDelivers(t *testing.T) {
	f, url := httpFixture(t)
	events := f.receive(0)
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "hello"})
	for range 2 {
		var code int
		// Receive may not have started taking posts yet: 503 until then.
		for code = 0; code != http.StatusOK; {
			var err error
			if code, err = f.srv.Callback(url, m); err != nil {
				t.Fatal(err)
			}
			if code != http.StatusOK && code != http.StatusServiceUnavailable {
				t.Fatalf("a signed callback got %d", code)
			}
		}
		ev := next(t, events)
		if ev.ID != m.MsgID || ev.Text != "hello" || ev.Chat != (gateway.Chat{ID: "manager42", Type: gateway.DM}) || ev.User.ID != "manager42" || !ev.Addressed {
			t.Errorf("event %+v", ev)
		}
	}
}

// Forged callbacks are refused with 401 before their body is read, and
// nothing reaches the gateway: no signature, another secret's, a
// signature replayed past the hour, one from the future, a timestamp in
// seconds, a GET.
func TestCallbackRefusesForgeries(t *testing.T) {
	f, url := httpFixture(t)
	events := f.receive(0)
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "rm -rf / please"})
	now := time.Now()
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	stale, future := ms(now.Add(-61*time.Minute)), ms(now.Add(61*time.Minute))
	secret := f.srv.ClientSecret
	for _, c := range []struct{ name, ts, sign string }{
		{"unsigned", "", ""},
		{"timestamp only", ms(now), ""},
		{"another secret", ms(now), dingtalktest.Sign(ms(now), "guessed-secret")},
		{"replayed after an hour", stale, dingtalktest.Sign(stale, secret)},
		{"from the future", future, dingtalktest.Sign(future, secret)},
		{"seconds", strconv.FormatInt(now.Unix(), 10), dingtalktest.Sign(strconv.FormatInt(now.Unix(), 10), secret)},
		{"sign of another timestamp", ms(now), dingtalktest.Sign(ms(now.Add(-time.Second)), secret)},
	} {
		code, err := f.srv.CallbackSigned(url, m, c.ts, c.sign)
		if err != nil {
			t.Fatal(err)
		}
		if code != http.StatusUnauthorized {
			t.Errorf("%s: got %d, want 401", c.name, code)
		}
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET got %d", resp.StatusCode)
	}
	select {
	case ev := <-events:
		t.Errorf("a forged callback was delivered: %+v", ev)
	default:
	}
	if !strings.Contains(f.log.String(), "not DingTalk's was refused") {
		t.Errorf("the refusals were not logged:\n%s", f.log.String())
	}
}

// A callback the gateway could not take is answered 503, so DingTalk
// posts it again.
func TestCallbackNotTakenIsRetried(t *testing.T) {
	f, url := httpFixture(t)
	events := f.receive(1)
	m := f.srv.UserMessage(dingtalktest.Incoming{Text: "again"})
	codes := map[int]int{}
	for codes[http.StatusOK] == 0 {
		code, err := f.srv.Callback(url, m)
		if err != nil {
			t.Fatal(err)
		}
		codes[code]++
	}
	if codes[http.StatusServiceUnavailable] == 0 {
		t.Errorf("the refused delivery was not answered 503: %v", codes)
	}
	if ev := next(t, events); ev.ID != m.MsgID {
		t.Errorf("event %+v", ev)
	}
}

// A group message is addressed only when it @-mentions the robot.
func TestGroupMessagesAddressedByAtList(t *testing.T) {
	f, url := httpFixture(t)
	events := f.receive(0)
	for _, at := range []bool{false, true} {
		m := f.srv.UserMessage(dingtalktest.Incoming{Text: "status?", Group: "cidGROUP1", AtBot: at})
		for code := 0; code != http.StatusOK; {
			code, _ = f.srv.Callback(url, m)
		}
		ev := next(t, events)
		if ev.Chat != (gateway.Chat{ID: "cidGROUP1", Type: gateway.Group}) || ev.Addressed != at || ev.Text != "status?" {
			t.Errorf("at=%v: event %+v", at, ev)
		}
	}
}
