package slack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// maxBody bounds one posted event; real ones are a few KB.
const maxBody = 1 << 20

// WebhookHandler returns the path hermes answers the Events API on and
// the handler, or "" and nil in Socket Mode.
func (a *Adapter) WebhookHandler() (string, http.Handler) {
	if a.appToken != "" {
		return "", nil
	}
	return a.path, http.HandlerFunc(a.serveEvents)
}

// receiveHTTP is Receive for the Events API: it learns who the bot is,
// then hands what Slack posts to deliver until ctx ends.
func (a *Adapter) receiveHTTP(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	if err := a.whoAmI(ctx); err != nil {
		return err
	}
	a.inlet.Open(deliver)
	defer a.inlet.Close()
	a.log.Info("slack: taking the Events API", "path", a.path)
	<-ctx.Done()
	return nil
}

// serveEvents takes one post of the Events API or of interactivity. The
// signature is checked on the raw body before it is parsed; the event is
// answered 200 once deliver took it and 5xx when it could not, so Slack
// posts it again (the gateway drops the duplicate if it was taken after
// all).
func (a *Adapter) serveEvents(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "unreadable", http.StatusBadRequest)
		return
	}
	if err := verify(a.secret, r.Header, body, a.clock.Now()); err != nil {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a.log.Warn("slack: a post that is not Slack's was refused", "remote", host, "why", err.Error())
		w.Header().Set("X-Slack-No-Retry", "1")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	ev, ok, challenge, err := a.parsePost(r.Header.Get("Content-Type"), body)
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case challenge != "":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, challenge)
		return
	}
	deliver := a.inlet.Take()
	switch {
	case deliver == nil:
		http.Error(w, "not receiving yet", http.StatusServiceUnavailable)
		return
	case !ok:
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := deliver(r.Context(), ev); err != nil {
		a.log.Warn("slack: a posted event was not taken; Slack will post it again", "event", ev.ID, "err", err)
		http.Error(w, "not taken, post again", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// parsePost reads a verified post: interactivity comes form-encoded with
// its JSON in the payload field, events as JSON. It returns the event,
// or the challenge of a url_verification.
func (a *Adapter) parsePost(contentType string, body []byte) (ev gateway.Event, ok bool, challenge string, err error) {
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		form, err := url.ParseQuery(string(body))
		if err != nil || form.Get("payload") == "" {
			return ev, false, "", errors.New("an interactivity post carries its JSON in the payload field")
		}
		ev, ok = a.buttonEvent([]byte(form.Get("payload")))
		return ev, ok, "", nil
	}
	var cb callback
	if err := json.Unmarshal(body, &cb); err != nil {
		return ev, false, "", errors.New("the body is not an Events API callback")
	}
	if cb.Type == "url_verification" {
		if cb.Challenge == "" {
			return ev, false, "", errors.New("the url_verification has no challenge")
		}
		return ev, false, cb.Challenge, nil
	}
	if cb.Type != "event_callback" {
		return ev, false, "", nil
	}
	ev, ok = a.messageEvent(cb.Event)
	return ev, ok, "", nil
}
