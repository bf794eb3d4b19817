package feishu

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// maxPostBytes bounds one post; real events are a few KB.
const maxPostBytes = 1 << 20

// The window a signed post's timestamp must fall in. Feishu retries an
// event for hours, and a retry may keep its first timestamp, so the past
// is allowed half a day; replays inside that are events already seen,
// which the gateway drops by event_id for longer. Posts from the future
// get a few minutes of clock skew.
const (
	maxPostAge  = 12 * time.Hour
	maxPostSkew = 5 * time.Minute
)

// WebhookHandler returns the path Feishu posts events and card callbacks
// to, and the handler that takes them; "" and nil over the long
// connection.
func (a *Adapter) WebhookHandler() (string, http.Handler) {
	if a.long {
		return "", nil
	}
	return a.path, http.HandlerFunc(a.serveWebhook)
}

// Receive learns the bot's open_id (to tell its mentions), then hands
// every event Feishu posts, or sends down the long connection, to
// deliver until ctx ends.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	defer a.inlet.Close()
	for backoff := time.Duration(0); ; {
		var info struct {
			Bot struct {
				OpenID  string `json:"open_id"`
				AppName string `json:"app_name"`
			} `json:"bot"`
		}
		err := a.call(ctx, http.MethodGet, "/open-apis/bot/v3/info", nil, &info)
		if err == nil {
			// Posts are taken from now on, when a mention of the bot
			// can be told; until then they are answered 503 and Feishu
			// posts them again.
			a.mu.Lock()
			a.botOpenID = info.Bot.OpenID
			a.mu.Unlock()
			a.inlet.Open(deliver)
			a.log.Info("feishu: taking events", "bot", info.Bot.AppName, "long_connection", a.long, "path", a.path)
			break
		}
		// Credentials Feishu refuses stay refused.
		var ae *apiError
		if errors.As(err, &ae) && ae.Status < 500 && ae.Status != 429 && ae.Code != codeAppRateLimit {
			return err
		}
		backoff = min(max(2*backoff, time.Second), time.Minute)
		a.log.Warn("feishu: asking for the bot's info failed; events wait until it works (Feishu sends them again)", "err", err, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
	if a.long {
		return a.receiveLong(ctx)
	}
	<-ctx.Done()
	return nil
}

// serveWebhook takes one post. Nothing of the body is read as JSON before
// it is verified: with an encrypt key, the signature over the raw body
// and a timestamp in the window, then the decryption; in every case the
// verification token. Then the event is delivered and answered 200, or
// 503 when it was not taken, so that Feishu posts it again.
func (a *Adapter) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPostBytes))
	if err != nil {
		http.Error(w, "post too large", http.StatusRequestEntityTooLarge)
		return
	}
	plain, why := a.open(r.Header, raw)
	if why != "" {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a.log.Warn("feishu: a post was refused", "why", why, "remote", host)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var env envelope
	if err := json.Unmarshal(plain, &env); err != nil {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	if env.Type == "url_verification" {
		if !equalSecret(env.Token, a.verifyToken) {
			a.log.Warn("feishu: a url_verification without the verification token was refused")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		writeJSON(w, map[string]string{"challenge": env.Challenge})
		return
	}
	if env.Schema != "2.0" || !equalSecret(env.Header.Token, a.verifyToken) {
		a.log.Warn("feishu: an event without the verification token (or not of schema 2.0) was refused", "schema", env.Schema)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if env.Header.AppID != "" && env.Header.AppID != a.appID {
		a.log.Warn("feishu: an event for another app was refused", "app_id", env.Header.AppID)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	a.dispatch(w, r, env)
}

// open verifies a post and returns the event's JSON, or why it is
// refused.
func (a *Adapter) open(h http.Header, raw []byte) ([]byte, string) {
	if a.encryptKey == "" {
		return raw, ""
	}
	// The signature covers the raw body; a url_verification is not
	// signed, and is checked by its token once decrypted.
	sig := h.Get("X-Lark-Signature")
	if sig != "" {
		ts, nonce := h.Get("X-Lark-Request-Timestamp"), h.Get("X-Lark-Request-Nonce")
		if !validSignature(sig, ts, nonce, a.encryptKey, raw) {
			return nil, "bad signature"
		}
		at, ok := parseTimestamp(ts)
		if !ok {
			return nil, "unreadable timestamp"
		}
		if now := a.clock.Now(); at.Before(now.Add(-maxPostAge)) || at.After(now.Add(maxPostSkew)) {
			return nil, "timestamp out of the window"
		}
	}
	var enc struct {
		Encrypt *string `json:"encrypt"`
	}
	if json.Unmarshal(raw, &enc) != nil || enc.Encrypt == nil {
		return nil, "not encrypted, though an encrypt key is set"
	}
	plain, err := Decrypt(a.encryptKey, *enc.Encrypt)
	if err != nil {
		return nil, "does not decrypt with the encrypt key"
	}
	if sig == "" && !isVerification(plain) {
		return nil, "no signature"
	}
	return plain, ""
}

// isVerification reports whether an event is a url_verification, the
// one post Feishu does not sign.
func isVerification(plain []byte) bool {
	var v struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(plain, &v) == nil && v.Type == "url_verification"
}

// parseTimestamp reads X-Lark-Request-Timestamp: Unix seconds (or
// milliseconds), or, as some posts have carried, a Go time string.
func parseTimestamp(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > 1e12 {
			return time.UnixMilli(n), true
		}
		return time.Unix(n, 0), true
	}
	if i := strings.Index(s, " m="); i >= 0 {
		s = s[:i]
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999 -0700 MST", "2006-01-02 15:04:05.999999999 -0700", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
