package feishu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// apiError is a call Feishu answered with a code other than 0, in a 200
// or not.
type apiError struct {
	Op     string
	Status int
	Code   int
	Msg    string
	// RetryAfter is what x-ogw-ratelimit-reset asked for, 0 when absent.
	RetryAfter time.Duration
}

func (e *apiError) Error() string {
	return fmt.Sprintf("feishu: %s: HTTP %d, code %d: %s", e.Op, e.Status, e.Code, e.Msg)
}

// transportError is a call that got no answer, or none that could be read.
type transportError struct{ msg string }

func (e *transportError) Error() string { return e.msg }

// callTimeout bounds one API call.
const callTimeout = 20 * time.Second

// The codes that say the tenant_access_token is no good: invalid,
// expired, or missing.
const (
	codeTokenInvalid = 99991663
	codeTokenExpired = 99991668
	codeTokenMissing = 99991661
)

// call makes one Open API call with the tenant_access_token and decodes
// its data into out. A token Feishu calls invalid or expired is dropped
// and the call made once more with a new one.
func (a *Adapter) call(ctx context.Context, method, path string, body, out any) error {
	for attempt := 0; ; attempt++ {
		tok, err := a.token.get(ctx, a)
		if err != nil {
			return err
		}
		err = a.do(ctx, method, path, tok, body, out)
		var ae *apiError
		if attempt == 0 && errors.As(err, &ae) && (ae.Code == codeTokenInvalid || ae.Code == codeTokenExpired || ae.Code == codeTokenMissing) {
			a.log.Info("feishu: the tenant_access_token was refused; getting a new one", "code", ae.Code)
			a.token.drop(tok)
			continue
		}
		return err
	}
}

// do sends one request and reads Feishu's envelope {code, msg, data}.
func (a *Adapter) do(ctx context.Context, method, path, token string, body, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("feishu: %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return &transportError{msg: fmt.Sprintf("feishu: %s %s: %v", method, path, err)}
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		// The client's error names the URL, which holds no secret.
		return &transportError{msg: fmt.Sprintf("feishu: %s %s: %v", method, path, err)}
	}
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Msg  string          `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return &transportError{msg: fmt.Sprintf("feishu: %s %s: reading the answer: %v", method, path, err)}
	}
	op := method + " " + path
	if err := json.Unmarshal(raw, &env); err != nil {
		if resp.StatusCode != http.StatusOK {
			return a.apiErr(op, resp, 0, http.StatusText(resp.StatusCode))
		}
		return &transportError{msg: fmt.Sprintf("feishu: %s: the answer is not JSON", op)}
	}
	if env.Code != 0 || resp.StatusCode/100 != 2 {
		return a.apiErr(op, resp, env.Code, env.Msg)
	}
	if out == nil {
		return nil
	}
	// The token endpoint answers without data; the others inside it.
	src := env.Data
	if len(src) == 0 {
		src = raw
	}
	if err := json.Unmarshal(src, out); err != nil {
		return fmt.Errorf("feishu: %s: decoding the answer: %w", op, err)
	}
	return nil
}

func (a *Adapter) apiErr(op string, resp *http.Response, code int, msg string) *apiError {
	e := &apiError{Op: op, Status: resp.StatusCode, Code: code, Msg: msg}
	if s, err := strconv.Atoi(resp.Header.Get("x-ogw-ratelimit-reset")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}
