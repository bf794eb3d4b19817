package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// apiError is a request the homeserver answered with an error.
type apiError struct {
	Path    string
	Status  int
	Code    string // errcode, M_LIMIT_EXCEEDED ...
	Message string
	// RetryAfter is the wait the server asked for (retry_after_ms, or
	// the Retry-After header).
	RetryAfter time.Duration
}

func (e *apiError) Error() string {
	return fmt.Sprintf("matrix: %s: %d %s %s", e.Path, e.Status, e.Code, e.Message)
}

// rateLimited reports whether the server asked hermes to slow down.
func (e *apiError) rateLimited() bool { return e.Status == 429 || e.Code == "M_LIMIT_EXCEEDED" }

// transportError is a request that got no answer. Its text has the
// access token replaced, and it does not wrap the HTTP client's error.
type transportError struct {
	msg    string
	ctxErr error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// callTimeout bounds a request other than a long poll.
const callTimeout = 30 * time.Second

// call makes one Client-Server API request: method on path (already
// escaped) with query, body as JSON when not nil, and the answer decoded
// into out when not nil.
func (a *Adapter) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	if body == nil {
		return a.callRaw(ctx, method, path, query, "", nil, out)
	}
	b, err := marshal(body)
	if err != nil {
		return fmt.Errorf("matrix: %s: %w", path, err)
	}
	return a.callRaw(ctx, method, path, query, "application/json", bytes.NewReader(b), out)
}

// marshal encodes v as JSON the way the homeserver counts it: <, > and &
// as themselves, not the six bytes of \u003c that encoding/json writes
// by default, which would make text of markup seem six times its size.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// callRaw is call with a body of its own type: JSON, or a file being
// uploaded.
func (a *Adapter) callRaw(ctx context.Context, method, path string, query url.Values, contentType string, body io.Reader, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	u := a.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return a.transport(ctx, path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	a.authorize(req)
	resp, err := a.client.Do(req)
	if err != nil {
		return a.transport(ctx, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return a.transport(ctx, path, fmt.Errorf("reading the answer: %w", err))
	}
	if resp.StatusCode != http.StatusOK {
		return a.apiErr(path, resp, raw)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("matrix: %s: decoding the answer: %w", path, err)
	}
	return nil
}

// authorize gives req the access token, once there is one.
func (a *Adapter) authorize(req *http.Request) {
	a.mu.Lock()
	token := a.token
	a.mu.Unlock()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
}

// apiErr reads a Matrix error answer: {"errcode", "error",
// "retry_after_ms"}, with Retry-After as newer servers also send it.
func (a *Adapter) apiErr(path string, resp *http.Response, raw []byte) *apiError {
	var body struct {
		Code       string `json:"errcode"`
		Message    string `json:"error"`
		RetryAfter int64  `json:"retry_after_ms"`
	}
	_ = json.Unmarshal(raw, &body)
	e := &apiError{Path: redactPath(path), Status: resp.StatusCode, Code: body.Code, Message: a.redact(body.Message),
		RetryAfter: time.Duration(body.RetryAfter) * time.Millisecond}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = max(e.RetryAfter, time.Duration(s)*time.Second)
	}
	return e
}

// redactPath keeps an error's path short: a request's path names rooms
// and transaction ids, never the token, so only its length is bounded.
func redactPath(p string) string {
	if len(p) > 200 {
		return p[:200] + "…"
	}
	return p
}

// transport makes err safe to log: the access token and password become
// <redacted>.
func (a *Adapter) transport(ctx context.Context, path string, err error) error {
	return &transportError{msg: "matrix: " + redactPath(path) + ": " + a.redact(err.Error()), ctxErr: ctx.Err()}
}

// redact replaces the secrets in s.
func (a *Adapter) redact(s string) string {
	a.mu.Lock()
	token := a.token
	a.mu.Unlock()
	for _, secret := range []string{token, a.password} {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "<redacted>")
			s = strings.ReplaceAll(s, url.QueryEscape(secret), "<redacted>")
		}
	}
	return s
}

// temporary reports whether err is worth retrying: no answer, or a 5xx.
func temporary(err error) bool {
	var te *transportError
	var ae *apiError
	return errors.As(err, &te) || (errors.As(err, &ae) && ae.Status >= 500)
}

// pathEsc escapes one path segment: room ids (!abc:server), user ids and
// transaction ids.
func pathEsc(s string) string { return url.PathEscape(s) }
