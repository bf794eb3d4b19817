// Package httpreq is the built-in "http_request" tool: one HTTP request
// to an API or service, made through the URL guard so the model cannot
// reach the machine's own services or a cloud metadata endpoint, with a
// response shaped for the model to read.
//
// Request headers and bodies may carry credentials, so the tool never
// logs them and never repeats them in its results or errors.
package httpreq

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// Limits on a call.
const (
	// DefaultTimeout and MaxTimeout bound one request, body included.
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 120 * time.Second
	// MaxTextChars caps a text body, and a JSON body re-encoded, in
	// characters; more would crowd the model's context.
	MaxTextChars = 50_000
	// maxRead is how much of a body is read at all; a body this large is
	// cut well past MaxTextChars anyway.
	maxRead = 1 << 20
)

// userAgent names hermes to servers, which then see a client rather than
// Go's generic default.
const userAgent = "hermes-agent (http_request)"

// HTTPRequest is the http_request tool. It is safe for concurrent use.
type HTTPRequest struct {
	guard  *netguard.Guard
	client *http.Client
}

// New returns the tool, making its requests through guard's client (see
// netguard.Guard.Client): every connection and redirect is checked
// against the guard. A nil guard is the default one, which refuses
// private addresses.
func New(guard *netguard.Guard) *HTTPRequest {
	if guard == nil {
		guard = &netguard.Guard{}
	}
	// The client has no timeout of its own: each call sets one on its
	// request's context.
	return &HTTPRequest{guard: guard, client: guard.Client(0)}
}

// Spec describes the tool. A request may change things on the server
// (POST, DELETE), so calls neither run side by side nor are retried.
func (h *HTTPRequest) Spec() tool.Spec {
	return tool.Spec{
		Name:        "http_request",
		Description: description,
		Parameters:  schema(),
		Toolset:     "web",
		Timeout:     MaxTimeout + 10*time.Second,
	}
}

// Call makes the request and returns a *Result; a non-2xx status is
// still a result. Failures are *tool.Error: invalid_arguments for a bad
// request, denied when the guard refuses the URL, timeout when no full
// response came in time, and upstream_unavailable for network errors.
func (h *HTTPRequest) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	r, err := parse(raw)
	if err != nil {
		return nil, err
	}
	// The guard's client enforces the rules when connecting; checking
	// first gives a refusal that names the whole URL.
	if err := h.guard.CheckURL(r.url); err != nil {
		return nil, &tool.Error{Code: tool.CodeDenied, Message: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, r.method, r.url.String(), bodyReader(r.body))
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "cannot build the request: %v", err)
	}
	req.Header = r.header
	if host := r.header.Get("Host"); host != "" {
		req.Host = host
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, classify(ctx, err, r)
	}
	defer resp.Body.Close()
	body, complete, err := readBody(resp.Body)
	if err != nil {
		return nil, classify(ctx, err, r)
	}
	res := newResult(resp, r.method, body, complete)
	if final := resp.Request.URL; final.String() != r.url.String() {
		res.FinalURL = final.Redacted()
	}
	return res, nil
}

// bodyReader returns nil for no body, so GET requests carry none.
func bodyReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// readBody reads up to maxRead bytes; complete is false when there was
// more.
func readBody(r io.Reader) (body []byte, complete bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, maxRead+1))
	if err != nil {
		return nil, false, err
	}
	if len(body) > maxRead {
		return body[:maxRead], false, nil
	}
	return body, true, nil
}

// classify turns a failed request into the error the model sees. The
// message names the URL without its password and never the request's
// headers or body.
func classify(ctx context.Context, err error, r *request) error {
	shown := r.url.Redacted()
	if b, ok := netguard.IsBlocked(err); ok {
		return &tool.Error{Code: tool.CodeDenied, Message: b.Error()}
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return tool.Errorf(tool.CodeTimeout, "%s %s got no complete response within %s; the server may be slow or unreachable: try again with a longer timeout (at most %d seconds) or check the URL", r.method, shown, r.timeout, int(MaxTimeout.Seconds()))
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	reason := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		reason = ue.Err.Error()
	}
	return tool.Errorf(tool.CodeUpstreamUnavailable, "%s %s failed: %s", r.method, shown, reason)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
