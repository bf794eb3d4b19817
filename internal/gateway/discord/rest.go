package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// userAgent is the User-Agent Discord asks bots to send.
const userAgent = "DiscordBot (https://github.com/hermes-go/hermes, 1)"

// callTimeout bounds one REST request.
const callTimeout = 30 * time.Second

// apiError is a request Discord answered with an error status.
type apiError struct {
	// Route is the request's method and path with secrets replaced.
	Route   string
	Status  int
	Code    int
	Message string
	// RetryAfter and Global come with a 429.
	RetryAfter time.Duration
	Global     bool
}

func (e *apiError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Code != 0 {
		return fmt.Sprintf("discord: %s: %d %s (code %d)", e.Route, e.Status, msg, e.Code)
	}
	return fmt.Sprintf("discord: %s: %d %s", e.Route, e.Status, msg)
}

// transportError is a request that got no answer. It does not wrap the
// HTTP client's error, whose URL may hold an interaction token.
type transportError struct {
	msg    string
	ctxErr error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// request is one REST call.
type request struct {
	method string
	// path is the URL path under the base; route is how it is named in
	// errors, logs and rate-limit buckets, with ids that vary per message
	// and any interaction token replaced.
	path, route string
	body        any
	// form, when set, is sent instead of body (a multipart upload).
	form        *bytes.Buffer
	contentType string
	// interaction calls are answers to interactions: they go without the
	// bot token and are not held by the global rate limit.
	interaction bool
}

// call makes the request and decodes a successful answer into out.
func (a *Adapter) call(ctx context.Context, r request, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	if err := a.limits.wait(ctx, r.route, !r.interaction); err != nil {
		return &transportError{msg: "discord: " + r.route + ": waiting for the rate limit: " + err.Error(), ctxErr: err}
	}
	var body io.Reader
	contentType := r.contentType
	switch {
	case r.form != nil:
		body = r.form
	case r.body != nil:
		b, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("discord: %s: %w", r.route, err)
		}
		body, contentType = bytes.NewReader(b), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, r.method, a.base+r.path, body)
	if err != nil {
		return a.transport(ctx, r.route, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", userAgent)
	if !r.interaction {
		req.Header.Set("Authorization", "Bot "+a.token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return a.transport(ctx, r.route, err)
	}
	defer resp.Body.Close()
	a.limits.update(r.route, resp.Header)
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return a.transport(ctx, r.route, fmt.Errorf("reading the answer: %w", err))
	}
	if resp.StatusCode >= 300 {
		e := decodeError(r.route, resp, data)
		if e.Status == http.StatusTooManyRequests && e.Global {
			a.limits.holdAll(e.RetryAfter)
		}
		return e
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("discord: %s: decoding the answer: %w", r.route, err)
	}
	return nil
}

// decodeError reads an error answer: Discord's {code, message} and, for a
// 429, retry_after (seconds, fractional) and global, falling back on the
// Retry-After and X-RateLimit-Global headers.
func decodeError(route string, resp *http.Response, data []byte) *apiError {
	var body struct {
		Code       int      `json:"code"`
		Message    string   `json:"message"`
		RetryAfter *float64 `json:"retry_after"`
		Global     bool     `json:"global"`
	}
	_ = json.Unmarshal(data, &body)
	e := &apiError{Route: route, Status: resp.StatusCode, Code: body.Code, Message: body.Message, Global: body.Global}
	if resp.StatusCode != http.StatusTooManyRequests {
		return e
	}
	if strings.EqualFold(resp.Header.Get("X-RateLimit-Global"), "true") || resp.Header.Get("X-RateLimit-Scope") == "global" {
		e.Global = true
	}
	secs := 0.0
	switch {
	case body.RetryAfter != nil:
		secs = *body.RetryAfter
	case resp.Header.Get("Retry-After") != "":
		secs, _ = strconv.ParseFloat(resp.Header.Get("Retry-After"), 64)
	case resp.Header.Get("X-RateLimit-Reset-After") != "":
		secs, _ = strconv.ParseFloat(resp.Header.Get("X-RateLimit-Reset-After"), 64)
	}
	if secs <= 0 || secs > 24*3600 {
		secs = 1 // a 429 always means wait; an absurd value is not believed
	}
	e.RetryAfter = time.Duration(secs * float64(time.Second))
	return e
}

// transport makes err safe to log: the URL, which may hold an interaction
// token, is left out.
func (a *Adapter) transport(ctx context.Context, route string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		msg = "timed out: " + msg
	}
	return &transportError{msg: "discord: " + route + ": " + strings.ReplaceAll(msg, a.token, "<token>"), ctxErr: ctx.Err()}
}
