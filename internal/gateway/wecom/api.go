package wecom

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
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// callTimeout bounds one API call.
const callTimeout = 30 * time.Second

// apiError is a call WeCom answered with a non-zero errcode (in a 200,
// as WeCom answers failures) or with an HTTP error status.
type apiError struct {
	Path    string
	Status  int
	Code    int
	Message string
}

func (e *apiError) Error() string {
	if e.Code == 0 {
		return fmt.Sprintf("wecom: %s: HTTP %d", e.Path, e.Status)
	}
	return fmt.Sprintf("wecom: %s: errcode %d %s", e.Path, e.Code, e.Message)
}

// transportError is a call that got no answer. Its text names the path
// only, and it does not wrap the HTTP client's error, whose URL holds the
// access token or the secret.
type transportError struct {
	msg    string
	ctxErr error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// The errcodes that say the access token is no good: invalid (40014),
// expired (42001).
const (
	codeInvalidToken = 40014
	codeExpiredToken = 42001
)

// tokenCache is the app's access_token: fetched when first needed,
// shared by every send, and fetched again before it expires or when
// WeCom says it is no longer good.
type tokenCache struct {
	mu      sync.Mutex
	token   string
	expires time.Time
	// shown is every token fetched so far, for redact, which must not
	// wait for mu (a fetch holds it while it calls).
	shown atomic.Pointer[string]
}

// accessToken returns the cached token or fetches one.
func (a *App) accessToken(ctx context.Context) (string, error) {
	a.token.mu.Lock()
	defer a.token.mu.Unlock()
	if a.token.token != "" && a.clock.Now().Before(a.token.expires) {
		return a.token.token, nil
	}
	q := url.Values{"corpid": {a.corpID}, "corpsecret": {a.secret}}
	var out struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := a.do(ctx, http.MethodGet, "/cgi-bin/gettoken", q, nil, &out); err != nil {
		return "", err
	}
	if out.AccessToken == "" {
		return "", &apiError{Path: "/cgi-bin/gettoken", Status: http.StatusOK, Message: "no access_token in the answer"}
	}
	life := time.Duration(out.ExpiresIn) * time.Second
	// Refetch a little early, so a token does not expire in flight.
	a.token.shown.Store(&out.AccessToken)
	a.token.token, a.token.expires = out.AccessToken, a.clock.Now().Add(max(life-5*time.Minute, life/2))
	return a.token.token, nil
}

// dropToken forgets token, if it is still the cached one.
func (a *App) dropToken(token string) {
	a.token.mu.Lock()
	defer a.token.mu.Unlock()
	if a.token.token == token {
		a.token.token = ""
	}
}

// post calls path with the access token and body as JSON; when WeCom
// says the token is invalid or expired it fetches a new one and tries
// once more.
func (a *App) post(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("wecom: %s: %w", path, err)
	}
	for attempt := 0; ; attempt++ {
		token, err := a.accessToken(ctx)
		if err != nil {
			return err
		}
		err = a.do(ctx, http.MethodPost, path, url.Values{"access_token": {token}}, data, out)
		var ae *apiError
		if attempt == 0 && errors.As(err, &ae) && (ae.Code == codeInvalidToken || ae.Code == codeExpiredToken) {
			a.log.Info("wecom: the access token was refused; fetching a new one", "errcode", ae.Code)
			a.dropToken(token)
			continue
		}
		return err
	}
}

// do makes one call and decodes the answer into out; an errcode other
// than 0 is an *apiError.
func (a *App) do(ctx context.Context, method, path string, q url.Values, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path+"?"+q.Encode(), rd)
	if err != nil {
		return a.transport(ctx, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return a.transport(ctx, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return a.transport(ctx, path, fmt.Errorf("reading the answer: %w", err))
	}
	if resp.StatusCode != http.StatusOK {
		return &apiError{Path: path, Status: resp.StatusCode}
	}
	var status struct {
		ErrCode int    `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
	}
	if err := json.Unmarshal(raw, &status); err != nil {
		return a.transport(ctx, path, fmt.Errorf("the answer is not JSON: %w", err))
	}
	if status.ErrCode != 0 {
		return &apiError{Path: path, Status: resp.StatusCode, Code: status.ErrCode, Message: a.redact(status.ErrMsg)}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("wecom: %s: decoding the answer: %w", path, err)
		}
	}
	return nil
}

// transport makes err safe to log: the URL's query (the token or the
// secret) is left out.
func (a *App) transport(ctx context.Context, path string, err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Op + " " + a.base + path + ": " + ue.Err.Error()
	}
	var ne net.Error
	kind := ""
	if errors.As(err, &ne) && ne.Timeout() {
		kind = " (timeout)"
	}
	return &transportError{msg: "wecom: " + path + kind + ": " + a.redact(msg), ctxErr: ctx.Err()}
}

// redact replaces the secret and the cached token in s.
func (a *App) redact(s string) string {
	s = strings.ReplaceAll(s, a.secret, "<secret>")
	if tok := a.token.shown.Load(); tok != nil && *tok != "" {
		s = strings.ReplaceAll(s, *tok, "<token>")
	}
	return s
}
