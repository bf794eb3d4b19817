package wecom

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// timestampTolerance is how far a callback's timestamp may be from now.
// WeCom retries within about fifteen seconds; a signed callback replayed
// later than this is refused, and one replayed sooner is deduplicated on
// its MsgId.
const timestampTolerance = 5 * time.Minute

// WebhookHandler returns the path hermes answers WeCom's callbacks on and
// the handler.
func (a *App) WebhookHandler() (string, http.Handler) {
	return a.path, http.HandlerFunc(a.serveCallback)
}

// Receive takes callbacks until ctx ends: WeCom posts them to the handler
// WebhookHandler returns, served on gateway.webhook.listen.
func (a *App) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	a.inlet.Open(deliver)
	defer a.inlet.Close()
	a.log.Info("wecom: taking callbacks", "path", a.path)
	<-ctx.Done()
	return nil
}

// serveCallback answers WeCom: a GET verifies the URL, a POST carries a
// message. Nothing in a request is believed before its signature and
// timestamp are checked; a POST is answered at once and its reply sent
// later through message/send.
func (a *App) serveCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sig, ts, nonce := q.Get("msg_signature"), q.Get("timestamp"), q.Get("nonce")
	if err := a.checkTimestamp(ts); err != nil {
		a.refuse(w, r, http.StatusForbidden, err.Error())
		return
	}
	switch r.Method {
	case http.MethodGet:
		// The echostr is base64: a "+" that arrived unescaped was read
		// as a space.
		echo := strings.ReplaceAll(q.Get("echostr"), " ", "+")
		if !a.crypt.Verify(sig, ts, nonce, echo) {
			a.refuse(w, r, http.StatusForbidden, "the signature is wrong")
			return
		}
		plain, err := a.crypt.Decrypt(echo)
		if err != nil {
			a.refuse(w, r, http.StatusForbidden, err.Error())
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(plain)
		a.log.Info("wecom: the callback URL was verified")
	case http.MethodPost:
		a.servePost(w, r, sig, ts, nonce)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "GET or POST only", http.StatusMethodNotAllowed)
	}
}

// servePost opens a posted callback and hands its message to deliver.
func (a *App) servePost(w http.ResponseWriter, r *http.Request, sig, ts, nonce string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			a.refuse(w, r, http.StatusRequestEntityTooLarge, "the body is over 64 KB")
			return
		}
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	var env envelope
	if err := decodeXML(body, &env); err != nil {
		a.refuse(w, r, http.StatusBadRequest, "the body: "+err.Error())
		return
	}
	if env.Encrypt == "" || !a.crypt.Verify(sig, ts, nonce, env.Encrypt) {
		a.refuse(w, r, http.StatusForbidden, "the signature is wrong")
		return
	}
	plain, err := a.crypt.Decrypt(env.Encrypt)
	if err != nil {
		a.refuse(w, r, http.StatusForbidden, err.Error())
		return
	}
	var m appMessage
	if err := decodeXML(plain, &m); err != nil {
		a.refuse(w, r, http.StatusBadRequest, "the decrypted message: "+err.Error())
		return
	}
	if m.AgentID != 0 && m.AgentID != a.agentID {
		a.refuse(w, r, http.StatusForbidden, "the message is for agent "+strconv.FormatInt(m.AgentID, 10)+", not this app's")
		return
	}
	deliver := a.inlet.Take()
	if deliver == nil {
		http.Error(w, "not receiving yet", http.StatusServiceUnavailable)
		return
	}
	if ev, ok := a.event(m); ok {
		if err := deliver(r.Context(), ev); err != nil {
			a.log.Warn("wecom: a callback was not taken; WeCom will post it again", "event", ev.ID, "err", err)
			http.Error(w, "not taken, post again", http.StatusServiceUnavailable)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "success")
}

// checkTimestamp refuses a timestamp that is missing or too far from now.
func (a *App) checkTimestamp(ts string) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("the timestamp is missing or not a number")
	}
	d := a.clock.Now().Sub(time.Unix(sec, 0))
	if d > timestampTolerance || d < -timestampTolerance {
		return errors.New("the timestamp is " + d.Round(time.Second).String() + " from now, past the tolerance of " + timestampTolerance.String())
	}
	return nil
}

// refuse answers a request that failed a check, and logs why without
// anything from the request but the sender's address.
func (a *App) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	a.log.Warn("wecom: a callback was refused", "remote", host, "why", why)
	http.Error(w, http.StatusText(status), status)
}

// event turns a decrypted callback into a gateway Event; events that are
// not messages (entering the app, subscribing) and messages without text
// give none.
func (a *App) event(m appMessage) (gateway.Event, bool) {
	if m.MsgType != "text" || m.FromUserName == "" {
		a.log.Debug("wecom: callback without text skipped", "msgtype", m.MsgType, "event", m.Event)
		return gateway.Event{}, false
	}
	chat := gateway.Chat{ID: m.FromUserName, Type: gateway.DM}
	return gateway.Event{
		ID:        eventID(m),
		Kind:      gateway.KindMessage,
		Chat:      chat,
		User:      gateway.User{ID: m.FromUserName, Name: m.FromUserName},
		Received:  a.clock.Now(),
		Text:      m.Content,
		Addressed: true,
		MessageID: m.MsgID,
	}, true
}
