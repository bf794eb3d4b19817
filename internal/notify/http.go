package notify

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

// maxResponse is how much of a platform's answer is read: the answers are
// small JSON objects, and an error page need not be read whole.
const maxResponse = 64 << 10

// response is what a platform answered to one POST.
type response struct {
	status int
	header http.Header
	body   []byte
}

// postJSON sends body as JSON to url. A failure to get any answer is a
// transient SendError naming only what (the platform), never the URL,
// which may carry a key.
func postJSON(ctx context.Context, client *http.Client, what, url string, body any) (*response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, Permanent("%s: cannot encode the message: %v", what, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, Permanent("%s: bad endpoint URL", what)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "hermes-agent (notify)")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &SendError{Msg: what + ": cancelled", Err: ctx.Err()}
		}
		return nil, wrapTransient(stripURL(err), "%s: no answer", what)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, wrapTransient(stripURL(err), "%s: reading the answer", what)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// stripURL drops the URL from a *url.Error (which quotes it whole, key
// and all) and keeps the cause.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// checkStatus classifies a non-2xx answer: 408, 429 and 5xx are worth
// another try (429 after the Retry-After the server gave), the other
// statuses are permanent. It returns nil for 2xx.
func checkStatus(what string, r *response) error {
	if r.status >= 200 && r.status < 300 {
		return nil
	}
	msg := fmt.Sprintf("%s: HTTP %d%s", what, r.status, snippet(r.body))
	switch {
	case r.status == http.StatusTooManyRequests:
		return &SendError{Msg: msg + " (rate limited)", Transient: true, RetryAfter: retryAfter(r.header)}
	case r.status == http.StatusRequestTimeout || r.status >= 500:
		return &SendError{Msg: msg, Transient: true, RetryAfter: retryAfter(r.header)}
	default:
		return &SendError{Msg: msg}
	}
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date;
// zero means none was given.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// snippet quotes the start of an answer in an error, on one line.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	if s == "" {
		return ""
	}
	return " — " + s
}

// decode parses a platform's JSON answer into v; an answer that is not
// JSON is a transient failure (a proxy's error page, a half-written body).
func decode(what string, r *response, v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return Transient("%s: unexpected answer (HTTP %d)%s", what, r.status, snippet(r.body))
	}
	return nil
}
