// Package webhook is the gateway's inbound HTTP routes: a service
// (GitHub, a monitoring system, anything that can POST) calls a route of
// hermes serve, the call is verified on its raw body before anything is
// parsed, answered at once, and its payload, through the route's prompt
// template, becomes a turn whose result is delivered where the route
// says.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
)

// The ways a route checks who is calling.
const (
	// AuthGitHub checks X-Hub-Signature-256: the body's HMAC-SHA256
	// under the route's secret, as GitHub signs its webhooks.
	AuthGitHub = "github"
	// AuthBearer checks "Authorization: Bearer <secret>".
	AuthBearer = "bearer"
	// AuthStandard checks Standard Webhooks' webhook-signature (and
	// Svix's svix-signature): an HMAC-SHA256 of the id, the timestamp
	// and the body under the whsec_ secret, within five minutes of now.
	AuthStandard = "standard"
)

// standardTolerance is how far a Standard Webhooks timestamp may be from
// now, so a captured call cannot be replayed later.
const standardTolerance = 5 * time.Minute

// Route is one inbound route.
type Route struct {
	// Name names the route in logs and deliveries.
	Name string
	// Path is the URL path it answers ("/hooks/github").
	Path string
	// Auth is AuthGitHub or AuthBearer; Secret is its key.
	Auth   string
	Secret string
	// Prompt makes the turn's message from the payload (the decoded
	// JSON, with a json function to print any part of it).
	Prompt *template.Template
}

// Call is a verified call to a route, to run as a turn.
type Call struct {
	Route Route
	// ID is the delivery's id (X-GitHub-Delivery, webhook-id, or a hash
	// of the body).
	ID     string
	Prompt string
}

// Options assemble a Handler.
type Options struct {
	Routes []Route
	// Seen records a delivery id, reporting whether it is new; a
	// redelivered call is answered 200 and not run again.
	Seen func(ctx context.Context, route, id string) (first bool, err error)
	// Run runs a call's turn and delivers its result. It is called in a
	// goroutine of its own after the caller was answered; its ctx ends
	// with the Handler's.
	Run func(ctx context.Context, c Call)
	// MaxBody caps a payload; 0 means 1 MiB.
	MaxBody int64
	Logger  *slog.Logger
	// Now is the time Standard Webhooks timestamps are checked against;
	// nil means the wall clock.
	Now func() time.Time
}

// Handler serves the routes.
type Handler struct {
	opt  Options
	base context.Context
	wg   sync.WaitGroup
}

// New returns a Handler whose runs end when base does.
func New(base context.Context, opt Options) *Handler {
	if opt.MaxBody <= 0 {
		opt.MaxBody = 1 << 20
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Handler{opt: opt, base: base}
}

// Wait blocks until every run started has ended.
func (h *Handler) Wait() { h.wg.Wait() }

// ServeHTTP answers a call: 404 for no route, 405 for anything but POST,
// 413 for a body over MaxBody, 401 for a call that fails its route's
// check (nothing else is read), 400 for a body that is not JSON, 200 for a
// delivery already taken, and 202 once the call is taken; the turn runs
// afterwards.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, ok := h.route(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opt.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "payload too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	if !verified(route, r.Header, body, h.opt.Now()) {
		h.opt.Logger.Warn("webhook: call refused: bad or missing signature", slog.String("route", route.Name), slog.String("remote", r.RemoteAddr))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var payload any
	if err := json.Unmarshal(body, &payload); err != nil {
		http.Error(w, "the body is not JSON", http.StatusBadRequest)
		return
	}
	id := deliveryID(r.Header, body)
	if h.opt.Seen != nil {
		first, err := h.opt.Seen(r.Context(), "webhook:"+route.Name, id)
		if err != nil {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		if !first {
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "already taken\n")
			return
		}
	}
	var prompt bytes.Buffer
	if err := route.Prompt.Execute(&prompt, payload); err != nil {
		h.opt.Logger.Error("webhook: the route's prompt failed on this payload", slog.String("route", route.Name), slog.String("error", err.Error()))
		http.Error(w, "the route's prompt template failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "accepted\n")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.opt.Run(h.base, Call{Route: route, ID: id, Prompt: prompt.String()})
	}()
}

func (h *Handler) route(path string) (Route, bool) {
	for _, rt := range h.opt.Routes {
		if rt.Path == path {
			return rt, true
		}
	}
	return Route{}, false
}

// verified checks a call against its route, in constant time.
func verified(rt Route, hdr http.Header, body []byte, now time.Time) bool {
	if rt.Secret == "" {
		return false
	}
	switch rt.Auth {
	case AuthGitHub:
		got, ok := strings.CutPrefix(hdr.Get("X-Hub-Signature-256"), "sha256=")
		if !ok {
			return false
		}
		sig, err := hex.DecodeString(got)
		if err != nil {
			return false
		}
		mac := hmac.New(sha256.New, []byte(rt.Secret))
		mac.Write(body)
		return hmac.Equal(sig, mac.Sum(nil))
	case AuthBearer:
		got, ok := strings.CutPrefix(hdr.Get("Authorization"), "Bearer ")
		return ok && subtle.ConstantTimeCompare([]byte(got), []byte(rt.Secret)) == 1
	case AuthStandard:
		return standardVerified(rt.Secret, hdr, body, now)
	}
	return false
}

// standardVerified checks a Standard Webhooks (or Svix) signature: any
// of the space-separated "v1,<base64>" entries (several during a key
// rotation) may match HMAC-SHA256(key, id "." timestamp "." body), where
// key is the base64 after "whsec_".
func standardVerified(secret string, hdr http.Header, body []byte, now time.Time) bool {
	id, ts, sigs := hdr.Get("Webhook-Id"), hdr.Get("Webhook-Timestamp"), hdr.Get("Webhook-Signature")
	if id == "" {
		id, ts, sigs = hdr.Get("Svix-Id"), hdr.Get("Svix-Timestamp"), hdr.Get("Svix-Signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil {
		return false
	}
	if d := now.Sub(time.Unix(sec, 0)); d > standardTolerance || d < -standardTolerance {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	ok := false
	for _, entry := range strings.Fields(sigs) {
		v, sig, found := strings.Cut(entry, ",")
		if !found || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			ok = true
		}
	}
	return ok
}

// deliveryID is the id a sender gives a delivery, kept the same when it
// redelivers, or else the body's hash.
func deliveryID(hdr http.Header, body []byte) string {
	for _, h := range []string{"X-GitHub-Delivery", "Webhook-Id", "Svix-Id", "X-Request-Id"} {
		if v := hdr.Get(h); v != "" && len(v) <= 200 {
			return v
		}
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// ParsePrompt parses a route's prompt template. Besides the payload's
// fields (.action, .repository.full_name) it has json, which prints any
// value as JSON.
func ParsePrompt(name, text string) (*template.Template, error) {
	return template.New(name).Option("missingkey=zero").Funcs(template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.MarshalIndent(v, "", "  ")
			return string(b), err
		},
	}).Parse(text)
}
