package telegram

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Webhook turns on webhook mode: Telegram POSTs each update to URL
// instead of hermes polling for it. It suits a bot behind a TLS proxy
// that should not hold a poll open, or a host that sleeps between
// requests.
type Webhook struct {
	// URL is the public HTTPS address Telegram posts to; its path is
	// where hermes answers (on gateway.webhook.listen, behind the proxy).
	URL string
	// Secret is echoed by Telegram in X-Telegram-Bot-Api-Secret-Token
	// on every POST, and is the only thing that tells Telegram's calls
	// from anyone else's: 1–256 of A-Z a-z 0-9 _ -. Empty derives one
	// from the token, so it needs no configuration and stays the same
	// across restarts (whoever has the token can set the webhook anyway).
	Secret string
	// MaxConnections is how many POSTs Telegram makes at once (1–100;
	// 0 means Telegram's default, 40).
	MaxConnections int
}

// maxUpdateBytes bounds one posted update; real ones are a few KB.
const maxUpdateBytes = 1 << 20

// webhookState is the adapter's webhook mode.
type webhookState struct {
	cfg  Webhook
	path string

	// inlet holds Receive's deliver while it runs; posts before and
	// after are refused with 503 so Telegram keeps them.
	inlet gateway.Inlet
}

// checkWebhook validates w for an adapter on base and fills in the
// derived secret.
func checkWebhook(w Webhook, base, token string) (*webhookState, error) {
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("telegram: webhook url %q is not an https URL; give the public address Telegram posts to, such as https://bot.example.com/telegram", w.URL)
	}
	if base == DefaultBaseURL {
		// The public Bot API posts only over HTTPS, to these ports.
		if u.Scheme != "https" {
			return nil, fmt.Errorf("telegram: webhook url %q: Telegram posts only to https URLs", w.URL)
		}
		switch u.Port() {
		case "", "443", "80", "88", "8443":
		default:
			return nil, fmt.Errorf("telegram: webhook url %q: port %s is not one Telegram posts to; use 443, 80, 88 or 8443", w.URL, u.Port())
		}
	}
	if u.Path == "" || u.Path == "/" {
		return nil, fmt.Errorf("telegram: webhook url %q has no path; give one such as /telegram, where hermes answers", w.URL)
	}
	if w.Secret == "" {
		mac := hmac.New(sha256.New, []byte(token))
		mac.Write([]byte("hermes telegram webhook secret"))
		w.Secret = hex.EncodeToString(mac.Sum(nil))
	} else if !isSecretToken(w.Secret) {
		return nil, fmt.Errorf("telegram: webhook secret (%d characters) is not one Telegram accepts: 1 to 256 of A-Z, a-z, 0-9, _ and -", len(w.Secret))
	}
	if w.MaxConnections < 0 || w.MaxConnections > 100 {
		return nil, fmt.Errorf("telegram: webhook max_connections %d: Telegram accepts 1 to 100 (0 for its default, 40)", w.MaxConnections)
	}
	return &webhookState{cfg: w, path: u.Path}, nil
}

func isSecretToken(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WebhookHandler returns the path hermes answers Telegram's posts on and
// the handler, or "" and nil when the adapter polls.
func (a *Adapter) WebhookHandler() (string, http.Handler) {
	if a.hook == nil {
		return "", nil
	}
	return a.hook.path, http.HandlerFunc(a.serveWebhook)
}

// receiveWebhook is Receive in webhook mode: it sets the webhook, then
// hands what is posted to deliver until ctx ends. The webhook stays set
// when hermes stops, so Telegram keeps the updates until it is back.
func (a *Adapter) receiveWebhook(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	params := map[string]any{
		"url":                  a.hook.cfg.URL,
		"secret_token":         a.hook.cfg.Secret,
		"allowed_updates":      allowedUpdates(),
		"drop_pending_updates": false,
	}
	if n := a.hook.cfg.MaxConnections; n > 0 {
		params["max_connections"] = n
	}
	// Posts are taken from now on: a webhook set by an earlier run may
	// already be posting.
	a.hook.inlet.Open(deliver)
	defer a.hook.inlet.Close()
	backoff := time.Duration(0)
	for {
		err := a.call(ctx, "setWebhook", params, nil)
		if err == nil {
			break
		}
		var ae *apiError
		if errors.As(err, &ae) && (ae.Code == 401 || ae.Code == 404) {
			return fmt.Errorf("telegram: the Bot API refused the token (%d %s); check the token @BotFather issued", ae.Code, ae.Description)
		}
		if errors.As(err, &ae) && ae.Code == 400 {
			return fmt.Errorf("telegram: setWebhook refused the webhook url (host %s): %s", hostOf(a.hook.cfg.URL), ae.Description)
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("telegram: setWebhook failed", "err", err, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
	a.log.Info("telegram: webhook set", "webhook_host", hostOf(a.hook.cfg.URL), "path", a.hook.path)
	<-ctx.Done()
	return nil
}

// serveWebhook takes one posted update. Only a POST carrying the secret
// is read; the update is answered 200 once deliver took it, and 5xx when
// it could not, so Telegram posts it again (the gateway drops the
// duplicate if it had been taken after all).
func (a *Adapter) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
	if subtle.ConstantTimeCompare([]byte(got), []byte(a.hook.cfg.Secret)) != 1 {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a.log.Warn("telegram: a webhook post without the right secret was refused", "remote", host)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var u tgUpdate
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
	if err := dec.Decode(&u); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "update too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	deliver := a.hook.inlet.Take()
	if deliver == nil {
		http.Error(w, "not receiving yet", http.StatusServiceUnavailable)
		return
	}
	ev, ok := a.event(u)
	if !ok {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := deliver(r.Context(), ev); err != nil {
		a.log.Warn("telegram: a posted update was not taken; Telegram will post it again", "update_id", u.UpdateID, "err", err)
		http.Error(w, "not taken, post again", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}
