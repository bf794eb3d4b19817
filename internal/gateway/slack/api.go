package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// apiError is a Web API call that failed with an answer: HTTP 429, or
// {"ok":false,"error":…} (which Slack sends with status 200).
type apiError struct {
	Method string
	Status int
	// Code is Slack's error string ("ratelimited", "msg_too_long").
	Code string
	// RetryAfter is the Retry-After header of a 429.
	RetryAfter time.Duration
}

func (e *apiError) Error() string {
	return fmt.Sprintf("slack: %s: %s", e.Method, e.Code)
}

// transportError is a call that got no answer. Its text has the tokens
// replaced.
type transportError struct {
	msg    string
	ctxErr error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// callTimeout bounds one Web API call.
const callTimeout = 30 * time.Second

// maxAnswer bounds the answer of one call; real ones are a few KB.
const maxAnswer = 8 << 20

// call posts params as JSON to the Web API method with token and decodes
// the answer into out. A 429 and an answer with "ok": false are an
// *apiError.
func (a *Adapter) call(ctx context.Context, method, token string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("slack: %s: %w", method, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/"+method, bytes.NewReader(body))
	if err != nil {
		return a.transport(ctx, method, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := a.client.Do(req)
	if err != nil {
		return a.transport(ctx, method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return &apiError{Method: method, Status: resp.StatusCode, Code: "ratelimited", RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return a.transport(ctx, method, fmt.Errorf("reading the answer: %w", err))
	}
	var env struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		if resp.StatusCode != http.StatusOK {
			return &apiError{Method: method, Status: resp.StatusCode, Code: http.StatusText(resp.StatusCode)}
		}
		return a.transport(ctx, method, fmt.Errorf("the answer is not JSON: %w", err))
	}
	if !env.OK {
		e := &apiError{Method: method, Status: resp.StatusCode, Code: env.Error}
		if e.Code == "" {
			e.Code = "unknown_error"
		}
		if e.Code == "ratelimited" || e.Code == "rate_limited" {
			e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"))
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("slack: %s: decoding the answer: %w", method, err)
	}
	return nil
}

// retryAfter reads a Retry-After header in seconds; a missing or bad one
// is a second, Slack's usual wait.
func retryAfter(h string) time.Duration {
	n, err := strconv.ParseFloat(strings.TrimSpace(h), 64)
	if err != nil || n <= 0 {
		return time.Second
	}
	return time.Duration(n * float64(time.Second))
}

// transport makes err safe to log: the tokens become <token>.
func (a *Adapter) transport(ctx context.Context, method string, err error) error {
	var ne net.Error
	msg := "slack: " + method + ": " + a.redact(err.Error())
	if errors.As(err, &ne) && ne.Timeout() {
		msg += " (timed out)"
	}
	return &transportError{msg: msg, ctxErr: ctx.Err()}
}

// redact replaces the tokens and the signing secret in s.
func (a *Adapter) redact(s string) string {
	for _, secret := range []string{a.botToken, a.appToken, a.secret} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "<token>")
		}
	}
	return s
}
