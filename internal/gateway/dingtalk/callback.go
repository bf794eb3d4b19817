package dingtalk

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/hermes-go/hermes/internal/gateway"
)

// maxCallbackBytes bounds one posted message; real ones are a few KB.
const maxCallbackBytes = 1 << 20

// WebhookHandler returns the path hermes answers DingTalk's callbacks on
// and the handler, or "" and nil in stream mode.
func (a *Adapter) WebhookHandler() (string, http.Handler) {
	if a.path == "" {
		return "", nil
	}
	return a.path, http.HandlerFunc(a.serveCallback)
}

// receiveHTTP is Receive in http mode: DingTalk posts to the robot's
// message URL, set in the developer console, so there is nothing to
// connect; posts are taken until ctx ends.
func (a *Adapter) receiveHTTP(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	a.inlet.Open(deliver)
	defer a.inlet.Close()
	a.log.Info("dingtalk: taking the robot's messages by HTTP callback", "path", a.path)
	<-ctx.Done()
	return nil
}

// serveCallback takes one posted message. Its timestamp and sign headers
// are checked before a byte of the body is read, so a forged post costs
// nothing and reaches nothing; the message is answered 200 once deliver
// took it, and 503 when it could not, so DingTalk posts it again (the
// gateway drops the duplicate by its msgId).
func (a *Adapter) serveCallback(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if err := verify(r.Header.Get("timestamp"), r.Header.Get("sign"), a.secret, a.clock.Now()); err != nil {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a.log.Warn("dingtalk: a callback that is not DingTalk's was refused", "remote", host, "why", err.Error())
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "message too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "could not read the message", http.StatusBadRequest)
		return
	}
	deliver := a.inlet.Take()
	if deliver == nil {
		http.Error(w, "not receiving yet", http.StatusServiceUnavailable)
		return
	}
	ev, ok := a.event(body)
	if ok {
		if err := deliver(r.Context(), ev); err != nil {
			a.log.Warn("dingtalk: a posted message was not taken; DingTalk will post it again", "msg_id", ev.ID, "error", err)
			http.Error(w, "not taken, post again", http.StatusServiceUnavailable)
			return
		}
	}
	// An empty answer: the reply goes through the sessionWebhook once
	// the turn has run, not inside this request.
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{}`)
}
