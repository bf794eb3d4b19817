package telegram_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// webhookAdapter is an adapter in webhook mode whose handler answers on
// an httptest server, set as the webhook of srv.
func webhookAdapter(t *testing.T, srv *telegramtest.Server, secret string) (*telegram.Adapter, *httptest.Server) {
	t.Helper()
	var handler atomic.Value
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.Load().(http.Handler).ServeHTTP(w, r)
	}))
	t.Cleanup(hooks.Close)
	tg, err := telegram.New(telegram.Options{Token: srv.Token, BaseURL: srv.URL,
		Webhook: &telegram.Webhook{URL: hooks.URL + "/hooks/telegram", Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	path, h := tg.WebhookHandler()
	if path != "/hooks/telegram" || h == nil {
		t.Fatalf("WebhookHandler = %q, %v", path, h)
	}
	mux := http.NewServeMux()
	mux.Handle(path, h)
	handler.Store(http.Handler(mux))
	return tg, hooks
}

// In webhook mode the adapter sets the webhook with its secret and the
// update types, and takes what Telegram posts; an update deliver refused
// is answered 5xx so Telegram posts it again.
func TestWebhookReceives(t *testing.T) {
	srv := telegramtest.New(telegramtest.Options{})
	t.Cleanup(srv.Close)
	tg, _ := webhookAdapter(t, srv, "s3cret_-token")
	var refuse atomic.Bool
	refuse.Store(true)
	ch := make(chan gateway.Event, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tg.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			if refuse.Swap(false) {
				return errors.New("database is locked")
			}
			ch <- ev
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Receive: %v", err)
		}
	})
	srv.UserMessage(telegramtest.Incoming{Text: "by webhook"})
	ev := next(t, ch)
	if ev.Text != "by webhook" || ev.Chat.Type != gateway.DM {
		t.Errorf("event %+v", ev)
	}
	if srv.Webhook() == "" || srv.WebhookSecret() != "s3cret_-token" {
		t.Errorf("webhook %q with secret %q", srv.Webhook(), srv.WebhookSecret())
	}
	if got := strings.Join(srv.AllowedUpdates(), ","); got != "message,callback_query,my_chat_member" {
		t.Errorf("allowed_updates = %q", got)
	}
	var posts int
	var refused []int
	srv.Wait(ctxT(t), func() bool { posts, refused = srv.WebhookPosts(); return posts >= 2 })
	if posts != 2 || len(refused) != 1 || refused[0]/100 != 5 {
		t.Errorf("%d posts, refused with %v; want the refused one posted again", posts, refused)
	}
	if n := srv.CallCount("getUpdates"); n != 0 {
		t.Errorf("%d getUpdates calls in webhook mode", n)
	}
}

// Only Telegram's POSTs, with the secret, reach deliver: a forged update
// without it, or with a wrong one, is refused before it is read, as are
// other methods and oversized bodies.
func TestWebhookRefusesForgedPosts(t *testing.T) {
	srv := telegramtest.New(telegramtest.Options{})
	t.Cleanup(srv.Close)
	tg, hooks := webhookAdapter(t, srv, "")
	var delivered atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tg.Receive(ctx, func(context.Context, gateway.Event) error { delivered.Add(1); return nil })
	}()
	t.Cleanup(func() { cancel(); <-done })
	// Wait for the webhook to be set: then the derived secret is known.
	if err := srv.Wait(ctxT(t), func() bool { return srv.Webhook() != "" }); err != nil {
		t.Fatal(err)
	}
	secret := srv.WebhookSecret()
	if len(secret) < 32 || strings.Contains(secret, srv.Token) {
		t.Fatalf("derived secret %q: want a long value that is not the token", secret)
	}
	update := `{"update_id":9,"message":{"message_id":1,"date":1,"chat":{"id":42,"type":"private"},"from":{"id":42,"first_name":"Eve"},"text":"rm -rf /"}}`
	cases := []struct {
		name, method, secret, body string
		want                       int
	}{
		{"no secret", "POST", "", update, 401},
		{"wrong secret", "POST", "x" + secret[1:], update, 401},
		{"prefix of the secret", "POST", secret[:len(secret)-1], update, 401},
		{"GET", "GET", secret, "", 405},
		{"not JSON", "POST", secret, "{", 400},
		{"too large", "POST", secret, `{"update_id":1,"x":"` + strings.Repeat("a", 2<<20) + `"}`, 413},
		{"right secret", "POST", secret, update, 200},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, hooks.URL+"/hooks/telegram", strings.NewReader(c.body))
		if c.secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", c.secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	if n := delivered.Load(); n != 1 {
		t.Errorf("%d updates delivered, want only the one with the secret", n)
	}
}

func TestWebhookConfigErrors(t *testing.T) {
	cases := []struct {
		hook telegram.Webhook
		base string
		want string
	}{
		{telegram.Webhook{URL: "bot.example.com/tg"}, "", "is not an https URL"},
		{telegram.Webhook{URL: "http://bot.example.com/tg"}, "", "only to https"},
		{telegram.Webhook{URL: "https://bot.example.com:9000/tg"}, "", "port 9000"},
		{telegram.Webhook{URL: "https://bot.example.com"}, "", "has no path"},
		{telegram.Webhook{URL: "https://bot.example.com/tg", Secret: "has space"}, "", "1 to 256 of A-Z"},
		{telegram.Webhook{URL: "https://bot.example.com/tg", MaxConnections: 101}, "", "max_connections 101"},
		// A self-hosted Bot API server may post over plain HTTP.
		{telegram.Webhook{URL: "http://10.0.0.2:9000/tg"}, "http://10.0.0.1:8081", ""},
	}
	for _, c := range cases {
		_, err := telegram.New(telegram.Options{Token: "123:abc", BaseURL: c.base, Webhook: &c.hook})
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.hook, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.hook, err, c.want)
		}
		if err != nil && c.hook.Secret != "" && strings.Contains(err.Error(), c.hook.Secret) {
			t.Errorf("the error repeats the secret: %v", err)
		}
	}
}
