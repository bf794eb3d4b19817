package feishu_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

// The console's url_verification is answered with its challenge; one
// without the verification token is not.
func TestURLVerification(t *testing.T) {
	for _, key := range []string{"", "-"} {
		r := newRig(t, feishutest.Options{EncryptKey: key}, nil)
		if err := r.fs.Verify(); err != nil {
			t.Errorf("encrypt key %q: %v", key, err)
		}
		plain, _ := json.Marshal(map[string]string{"challenge": "c1", "token": "guessed", "type": "url_verification"})
		body, h := r.fs.Seal(plain)
		if status, out := r.fs.Post(body, h); status != http.StatusUnauthorized || strings.Contains(string(out), "c1") {
			t.Errorf("encrypt key %q: a verification with another token got %d %q", key, status, out)
		}
	}
}

// A message event becomes an Event: a direct message is addressed, a
// group message only when it mentions the bot, and the mention keys read
// as names.
func TestMessageEvents(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	id, msg := r.fs.Message(feishutest.Incoming{Text: "hello"})
	bob := feishutest.User{OpenID: "ou_bob", Name: "Bob"}
	gid, _ := r.fs.Message(feishutest.Incoming{ChatID: "oc_group", ChatType: "group", From: bob, Text: "@_user_1 what now?", Mentions: []feishutest.User{r.fs.Bot}})
	oid, _ := r.fs.Message(feishutest.Incoming{ChatID: "oc_group", ChatType: "group", From: bob, Text: "@_user_1 look", Mentions: []feishutest.User{feishutest.Alice()}})
	r.wait(t, func() bool { return len(r.delivered()) == 3 })
	byID := map[string]gateway.Event{}
	for _, ev := range r.delivered() {
		byID[ev.ID] = ev
	}
	dm := byID[id]
	if dm.Kind != gateway.KindMessage || dm.Chat != (gateway.Chat{ID: "oc_ou_alice", Type: gateway.DM}) || dm.User.ID != "ou_alice" ||
		dm.Text != "hello" || !dm.Addressed || dm.MessageID != msg {
		t.Errorf("direct message = %+v", dm)
	}
	if g := byID[gid]; g.Chat.Type != gateway.Group || !g.Addressed || g.Text != "@hermes what now?" {
		t.Errorf("group message to the bot = %+v", g)
	}
	if o := byID[oid]; o.Addressed || o.Text != "@Alice look" {
		t.Errorf("group message to someone else = %+v", o)
	}
}

// Forged posts are refused before anything of them is read as an event,
// and none reaches the gateway: each is one way to fake Feishu.
func TestForgedPostsAreRefused(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	fs := r.fs
	event := func(token, appID string) []byte {
		b, _ := json.Marshal(map[string]any{"schema": "2.0",
			"header": map[string]any{"event_id": "ev_forged", "event_type": "im.message.receive_v1", "token": token, "app_id": appID},
			"event": map[string]any{"sender": map[string]any{"sender_id": map[string]string{"open_id": "ou_alice"}, "sender_type": "user"},
				"message": map[string]any{"message_id": "om_f", "chat_id": "oc_ou_alice", "chat_type": "p2p", "message_type": "text", "content": `{"text":"forged"}`}}})
		return b
	}
	good := event(fs.VerificationToken, fs.AppID)
	sign := func(body []byte, ts string) http.Header {
		h := http.Header{}
		h.Set("X-Lark-Request-Timestamp", ts)
		h.Set("X-Lark-Request-Nonce", "n1")
		h.Set("X-Lark-Signature", feishutest.Sign(ts, "n1", fs.EncryptKey, body))
		return h
	}
	now := strconv.FormatInt(time.Now().Unix(), 10)
	sealed := func(plain []byte) []byte {
		b, _ := json.Marshal(map[string]string{"encrypt": feishutest.Encrypt(fs.EncryptKey, plain)})
		return b
	}
	body, h := fs.Seal(good)
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-3] ^= 1
	other := sealed(good)
	for name, post := range map[string]struct {
		body []byte
		h    http.Header
	}{
		"tampered body": {tampered, h},
		"signed with another key": {other, func() http.Header {
			h := sign(other, now)
			h.Set("X-Lark-Signature", feishutest.Sign(now, "n1", "guess", other))
			return h
		}()},
		"unsigned":             {other, http.Header{}},
		"plain JSON":           {good, sign(good, now)},
		"stale timestamp":      {other, sign(other, strconv.FormatInt(time.Now().Add(-13*time.Hour).Unix(), 10))},
		"future timestamp":     {other, sign(other, strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))},
		"unreadable timestamp": {other, sign(other, "yesterday")},
		"wrong token":          {sealed(event("guessed", fs.AppID)), nil},
		"no token":             {sealed(event("", fs.AppID)), nil},
		"another app":          {sealed(event(fs.VerificationToken, "cli_other")), nil},
		"other key inside": {func() []byte {
			b, _ := json.Marshal(map[string]string{"encrypt": feishutest.Encrypt("guess", good)})
			return b
		}(), nil},
	} {
		if post.h == nil {
			post.h = sign(post.body, now)
		}
		if status, _ := fs.Post(post.body, post.h); status != http.StatusUnauthorized {
			t.Errorf("%s: got %d, want 401", name, status)
		}
	}
	if status, _ := fs.Post(good, nil); status != http.StatusUnauthorized {
		t.Errorf("a bare post got %d", status)
	}
	if evs := r.delivered(); len(evs) != 0 {
		t.Errorf("forged events reached the gateway: %+v", evs)
	}
	// The same event, sealed as Feishu seals it, is taken.
	if status, _ := fs.Post(fs.Seal(good)); status != http.StatusOK || len(r.delivered()) != 1 {
		t.Errorf("the genuine post got %d, %d events", status, len(r.delivered()))
	}
	// A Go time string, as some posts carried, is read as a time.
	ts := time.Now().Format("2006-01-02 15:04:05.99 -0700 MST") + " m=+3612.1"
	if status, _ := fs.Post(other, sign(other, ts)); status != http.StatusOK {
		t.Errorf("a post stamped %q got %d", ts, status)
	}
}

// Without an encrypt key, posts are plain and unsigned, and the
// verification token is what tells Feishu's from anyone else's.
func TestPlainPostsNeedTheToken(t *testing.T) {
	r := newRig(t, feishutest.Options{EncryptKey: "-"}, nil)
	id, _ := r.fs.Message(feishutest.Incoming{Text: "plain"})
	r.waitAnswered(t, id)
	b, _ := json.Marshal(map[string]any{"schema": "2.0", "header": map[string]any{"event_id": "ev_x", "event_type": "im.message.receive_v1", "token": "guessed"}})
	if status, _ := r.fs.Post(b, http.Header{}); status != http.StatusUnauthorized {
		t.Errorf("a post with a guessed token got %d", status)
	}
	if evs := r.delivered(); len(evs) != 1 || evs[0].Text != "plain" {
		t.Errorf("events %+v", evs)
	}
}

// An event the gateway could not take is answered 503, so Feishu posts it
// again, and is taken then.
func TestEventNotTakenIsPostedAgain(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	r.mu.Lock()
	r.refuse = 2
	r.mu.Unlock()
	id, _ := r.fs.Message(feishutest.Incoming{Text: "again"})
	r.waitAnswered(t, id)
	if st := r.fs.Statuses(id); len(st) != 3 || st[0] != 503 || st[1] != 503 || st[2] != 200 {
		t.Errorf("statuses %v, want 503 503 200", st)
	}
	if evs := r.delivered(); len(evs) != 1 || evs[0].ID != id {
		t.Errorf("events %+v", evs)
	}
}

// A press of a card's button is a KindButton event with the button's
// data, and the callback is answered at once with the gateway's answer
// as a toast.
func TestCardPress(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	r.onButton = func(ev gateway.Event) { r.a.Answer(t.Context(), ev, "Done.") }
	ref, err := r.a.Send(t.Context(), gateway.Chat{ID: "oc_ou_alice", Type: gateway.DM},
		gateway.Outgoing{Text: "run it?", Buttons: [][]gateway.Button{{{Text: "Allow once", Data: "ap:0123456789ab:o"}}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := r.fs.Press(ref.ID, feishutest.Alice(), "ap:0123456789ab:o")
	if err != nil || res.Status != 200 || res.Toast != "Done." || res.ToastType != "success" || time.Since(start) > 3*time.Second {
		t.Errorf("press answered %+v, %v after %s", res, err, time.Since(start))
	}
	evs := r.delivered()
	if len(evs) != 1 || evs[0].Kind != gateway.KindButton || evs[0].Data != "ap:0123456789ab:o" || evs[0].User.ID != "ou_alice" ||
		evs[0].Chat.ID != "oc_ou_alice" || evs[0].Ref.ID != ref.ID {
		t.Errorf("events %+v", evs)
	}
}

// Before Receive runs (or after it stopped), a genuine post is answered
// 503, so Feishu keeps it and posts it again later.
func TestPostsWaitForReceive(t *testing.T) {
	fs := feishutest.New(feishutest.Options{})
	defer fs.Close()
	a, err := feishu.New(feishu.Options{AppID: fs.AppID, AppSecret: fs.AppSecret, VerificationToken: fs.VerificationToken, EncryptKey: fs.EncryptKey, BaseURL: fs.URL})
	if err != nil {
		t.Fatal(err)
	}
	path, h := a.WebhookHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	fs.SetEventURL(srv.URL + path)
	plain, _ := json.Marshal(map[string]any{"schema": "2.0", "header": map[string]any{"event_id": "ev_early", "event_type": "im.message.receive_v1", "token": fs.VerificationToken}})
	if status, _ := fs.Post(fs.Seal(plain)); status != http.StatusServiceUnavailable {
		t.Errorf("a post before Receive got %d, want 503", status)
	}
}
