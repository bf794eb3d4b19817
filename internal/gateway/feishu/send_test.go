package feishu_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

var alice = gateway.Chat{ID: "oc_ou_alice", Type: gateway.DM}

// Replies are cards: a new message in the chat, a reply to a message, or
// a reply in a thread; edits patch the card, and buttons go with it.
func TestSendReplyAndEdit(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	_, userMsg := r.fs.Message(feishutest.Incoming{Text: "hi"})
	ctx := t.Context()
	ref, err := r.a.Send(ctx, alice, gateway.Outgoing{Text: "**Hello**"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.Send(ctx, alice, gateway.Outgoing{Text: "answer", ReplyTo: userMsg}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.Send(ctx, gateway.Chat{ID: "oc_ou_alice", Thread: userMsg}, gateway.Outgoing{Text: "in the thread"}); err != nil {
		t.Fatal(err)
	}
	if err := r.a.Edit(ctx, ref, gateway.Outgoing{Text: "**Hello** again", Buttons: [][]gateway.Button{{{Text: "Deny", Data: "ap:x:d"}}}}); err != nil {
		t.Fatal(err)
	}
	sent := r.fs.Sent("oc_ou_alice")
	if len(sent) != 3 {
		t.Fatalf("sent %+v", sent)
	}
	if m := sent[0]; m.ID != ref.ID || m.MsgType != "interactive" || m.Text != "**Hello** again" || m.Edits != 1 ||
		len(m.Buttons) != 1 || m.Buttons[0][0].Text != "Deny" || m.Buttons[0][0].Data != "ap:x:d" {
		t.Errorf("first = %+v", m)
	}
	if m := sent[1]; m.ReplyTo != userMsg || m.InThread || m.Text != "answer" {
		t.Errorf("reply = %+v", m)
	}
	if m := sent[2]; m.ReplyTo != userMsg || !m.InThread {
		t.Errorf("thread reply = %+v", m)
	}
	// One token served every call.
	if n := r.fs.TokensIssued(); n != 1 {
		t.Errorf("%d tokens issued, want 1", n)
	}
}

// The model's text cannot become a card tag: <at id=all></at> would
// mention everyone, <font> and <link> would restyle it.
func TestCardTextIsShownAsWritten(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	text := `<at id=all></at> & <font color='red'>x</font> &lt; "q" \ ` + "`code`"
	if _, err := r.a.Send(t.Context(), alice, gateway.Outgoing{Text: text}); err != nil {
		t.Fatal(err)
	}
	m := r.fs.Sent("oc_ou_alice")[0]
	if m.Text != text {
		t.Errorf("shown %q, want %q", m.Text, text)
	}
	if strings.Contains(m.Content, "<at") || strings.Contains(m.Content, "<font") {
		t.Errorf("a tag reached the card: %s", m.Content)
	}
}

// Measure counts a text exactly as the card carries it, so the longest
// chunk gateway.Split makes fits Feishu's 30 KB, and a longer one is
// refused before it is sent.
func TestMeasureIsTheCardsBytes(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	base := len(r.sentContent(t, "x")) - 1
	for _, text := range []string{"plain", "<&>\"\\", "事件 🙂", "a\nb\tc\r\x01\b\f\x1f", "x\u2028\u2029", "bad \xff byte"} {
		if got, want := len(r.sentContent(t, text))-base, feishu.Measure(text); got != want {
			t.Errorf("%q: the card grew by %d bytes, Measure says %d", text, got, want)
		}
	}
	long := strings.Repeat("<a href=\"x\">事件</a> & more\n", 2000)
	chunks := gateway.Split(long, feishu.MaxText, feishu.Measure)
	for i, c := range chunks {
		if content := r.sentContent(t, c); len(content) > feishutest.MaxCardBytes {
			t.Errorf("chunk %d makes a card of %d bytes", i, len(content))
		}
	}
	var se *gateway.SendError
	if _, err := r.a.Send(t.Context(), alice, gateway.Outgoing{Text: strings.Repeat("<", feishu.MaxCard/4+1)}); !errors.As(err, &se) || se.Kind != gateway.Permanent {
		t.Errorf("an oversized card: %v", err)
	}
}

// sentContent sends text and returns the card's content as Feishu got it.
func (r *rig) sentContent(t *testing.T, text string) string {
	t.Helper()
	r.mu.Lock()
	r.chats++
	chat := gateway.Chat{ID: fmt.Sprintf("oc_measure%d", r.chats)} // a chat takes five a second
	r.mu.Unlock()
	if _, err := r.a.Send(t.Context(), chat, gateway.Outgoing{Text: text}); err != nil {
		t.Fatal(err)
	}
	sent := r.fs.Sent(chat.ID)
	return sent[len(sent)-1].Content
}

// Failures are classified by Feishu's code before its status: the rate
// limits (230020 in a 400, 99991400 in a 429 with its reset) ask to wait,
// a 5xx is passing, anything else is permanent.
func TestSendFailuresAreClassified(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	chat := gateway.Chat{ID: "oc_faults"}
	for _, tt := range []struct {
		fault func()
		kind  gateway.SendFailure
		wait  time.Duration
	}{
		{func() { r.fs.Throttle(chat.ID, 1) }, gateway.RateLimited, time.Second},
		{func() { r.fs.AppRateLimit(chat.ID, 1, 3) }, gateway.RateLimited, 3 * time.Second},
		{func() { r.fs.Fail(chat.ID, http.StatusInternalServerError, 1000, "internal error") }, gateway.Temporary, 0},
		{func() { r.fs.Fail(chat.ID, http.StatusOK, 230002, "Bot/User can NOT be out of the chat.") }, gateway.Permanent, 0},
		{func() { r.fs.Fail(chat.ID, http.StatusBadRequest, 230025, "too long") }, gateway.Permanent, 0},
	} {
		tt.fault()
		_, err := r.a.Send(t.Context(), chat, gateway.Outgoing{Text: "x"})
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != tt.kind || se.RetryAfter != tt.wait {
			t.Errorf("got %v, want %s after %s", err, tt.kind, tt.wait)
		}
	}
	// A failure in a 200 is a failure, not a send.
	if n := len(r.fs.Sent(chat.ID)); n != 0 {
		t.Errorf("%d messages kept", n)
	}
}

// The tenant_access_token is kept until half an hour before it expires,
// renewed then, and renewed at once when Feishu calls it invalid.
func TestTokenIsCachedAndRenewed(t *testing.T) {
	fake := clock.NewFake(time.Now())
	r := newRig(t, feishutest.Options{Clock: fake}, nil)
	send := func() {
		t.Helper()
		if _, err := r.a.Send(t.Context(), alice, gateway.Outgoing{Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	send()
	fake.Advance(89 * time.Minute)
	send()
	if n := r.fs.TokensIssued(); n != 1 {
		t.Errorf("%d tokens after 89 minutes, want 1", n)
	}
	fake.Advance(2 * time.Minute)
	send()
	if n := r.fs.TokensIssued(); n != 2 {
		t.Errorf("%d tokens after 91 minutes, want 2", n)
	}
	r.fs.ExpireTokens()
	send()
	if n := r.fs.TokensIssued(); n != 3 {
		t.Errorf("%d tokens after Feishu refused the token, want 3", n)
	}
}

// A wrong app secret fails with what to check, and neither the error nor
// the log holds it.
func TestBadCredentials(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	a, err := feishu.New(feishu.Options{AppID: r.fs.AppID, AppSecret: "wrong-secret-value", VerificationToken: "v", BaseURL: r.fs.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Send(t.Context(), alice, gateway.Outgoing{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "check app_id and app_secret") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("err = %v", err)
	}
	for _, o := range []feishu.Options{
		{AppID: "a1", AppSecret: "s", VerificationToken: "v"},
		{AppID: "cli_1", VerificationToken: "v"},
		{AppID: "cli_1", AppSecret: "s"},
		{AppID: "cli_1", AppSecret: "s", VerificationToken: "v", BaseURL: "ftp://x"},
		{AppID: "cli_1", AppSecret: "s", VerificationToken: "v", Path: "events"},
	} {
		if _, err := feishu.New(o); err == nil {
			t.Errorf("New(%+v) took it", o)
		}
	}
}
