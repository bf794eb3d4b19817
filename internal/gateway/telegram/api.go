package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// apiError is a call the Bot API answered with "ok": false.
type apiError struct {
	Method      string
	Code        int
	Description string
	RetryAfter  int
	MigrateTo   int64
}

func (e *apiError) Error() string {
	return fmt.Sprintf("telegram: %s: %d %s", e.Method, e.Code, e.Description)
}

// transportError is a call that got no answer from the Bot API. Its text
// has the token replaced, and it does not wrap the HTTP client's error,
// whose URL holds the token.
type transportError struct {
	msg     string
	timeout bool
	ctxErr  error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// envelope is every Bot API answer.
type envelope struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int   `json:"retry_after"`
		MigrateTo  int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

// callTimeout bounds a call other than a long poll.
const callTimeout = 30 * time.Second

// call posts params as JSON to method and decodes the result into out.
func (a *Adapter) call(ctx context.Context, method string, params any, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	return a.do(ctx, method, "application/json", bytes.NewReader(body), out)
}

// upload posts a multipart form with the file at path as field.
func (a *Adapter) upload(ctx context.Context, method, field, path string, params map[string]string, out any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	defer f.Close()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range params {
		if err := w.WriteField(k, v); err != nil {
			return err
		}
	}
	part, err := w.CreateFormFile(field, filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, f); err != nil {
		return fmt.Errorf("telegram: %s: reading %s: %w", method, path, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	return a.do(ctx, method, w.FormDataContentType(), &body, out)
}

func (a *Adapter) do(ctx context.Context, method, contentType string, body io.Reader, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/bot"+a.token+"/"+method, body)
	if err != nil {
		return a.transport(ctx, method, err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := a.client.Do(req)
	if err != nil {
		return a.transport(ctx, method, err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&env); err != nil {
		if resp.StatusCode != http.StatusOK {
			return &apiError{Method: method, Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode)}
		}
		return a.transport(ctx, method, fmt.Errorf("reading the answer: %w", err))
	}
	if !env.OK {
		e := &apiError{Method: method, Code: env.ErrorCode, Description: env.Description}
		if e.Code == 0 {
			e.Code = resp.StatusCode
		}
		if p := env.Parameters; p != nil {
			e.RetryAfter, e.MigrateTo = p.RetryAfter, p.MigrateTo
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("telegram: %s: decoding the result: %w", method, err)
	}
	return nil
}

// transport makes err safe to log: the token becomes <token>.
func (a *Adapter) transport(ctx context.Context, method string, err error) error {
	var ne net.Error
	return &transportError{
		msg:     "telegram: " + method + ": " + a.redact(err.Error()),
		timeout: errors.As(err, &ne) && ne.Timeout(),
		ctxErr:  ctx.Err(),
	}
}

// redact replaces the token in s.
func (a *Adapter) redact(s string) string {
	s = strings.ReplaceAll(s, a.token, "<token>")
	return strings.ReplaceAll(s, strings.ReplaceAll(a.token, ":", "%3A"), "<token>")
}
