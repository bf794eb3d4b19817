package dingtalk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// callTimeout bounds one call to DingTalk.
const callTimeout = 30 * time.Second

// maxAnswerBytes bounds what is read of an answer; real ones are small.
const maxAnswerBytes = 1 << 20

// apiError is a call DingTalk answered with an error: a status other
// than 2xx with the open API's {code, message}, or a 200 whose errcode is
// not 0, as the robot endpoints answer.
type apiError struct {
	// Op names the call without its URL, which may hold a session key.
	Op      string
	Status  int
	Code    string
	Errcode int
	Message string
}

func (e *apiError) Error() string {
	if e.Errcode != 0 {
		return fmt.Sprintf("dingtalk: %s: errcode %d %s", e.Op, e.Errcode, e.Message)
	}
	return fmt.Sprintf("dingtalk: %s: %d %s %s", e.Op, e.Status, e.Code, e.Message)
}

// transportError is a call that got no answer. Its text names the host
// and path only: a sessionWebhook's query is a key to the chat.
type transportError struct {
	msg    string
	ctxErr error
}

func (e *transportError) Error() string { return e.msg }

func (e *transportError) Unwrap() error { return e.ctxErr }

// post sends body as JSON to target (a path under the base URL or an
// absolute sessionWebhook) and decodes the answer into out. With token
// set, the access token goes in x-acs-dingtalk-access-token.
func (a *Adapter) post(ctx context.Context, op, target string, token bool, body, out any) error {
	if target[0] == '/' {
		target = a.base + target
	}
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("dingtalk: %s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("dingtalk: %s: the address is not a URL", op)
	}
	req.Header.Set("Content-Type", "application/json")
	if token {
		tok, err := a.tokens.get(ctx, a)
		if err != nil {
			return err
		}
		req.Header.Set("x-acs-dingtalk-access-token", tok)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &transportError{msg: fmt.Sprintf("dingtalk: %s: POST %s%s: %v", op, req.URL.Host, req.URL.Path, err), ctxErr: ctx.Err()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return &transportError{msg: fmt.Sprintf("dingtalk: %s: reading the answer: %v", op, err), ctxErr: ctx.Err()}
	}
	var env struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Errcode *int   `json:"errcode"`
		Errmsg  string `json:"errmsg"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := env.Message
		if msg == "" {
			msg = env.Errmsg
		}
		ae := &apiError{Op: op, Status: resp.StatusCode, Code: env.Code, Message: msg}
		if env.Errcode != nil {
			ae.Errcode = *env.Errcode
		}
		return ae
	}
	if env.Errcode != nil && *env.Errcode != 0 {
		return &apiError{Op: op, Status: resp.StatusCode, Errcode: *env.Errcode, Message: env.Errmsg}
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return &apiError{Op: op, Status: resp.StatusCode, Message: "the answer is not the JSON expected: " + err.Error()}
		}
	}
	return nil
}

// tokenEarly is how long before its expiry an access token is renewed.
const tokenEarly = 5 * time.Minute

// tokenCache keeps the app's access token until shortly before it
// expires (DingTalk issues them for 7200 s), so sends do not fetch one
// each.
type tokenCache struct {
	mu      sync.Mutex
	token   string
	expires time.Time
}

// get returns a valid access token, fetching one when there is none.
func (c *tokenCache) get(ctx context.Context, a *Adapter) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := a.clock.Now()
	if c.token != "" && now.Before(c.expires) {
		return c.token, nil
	}
	var out struct {
		AccessToken string `json:"accessToken"`
		ExpireIn    int64  `json:"expireIn"`
	}
	err := a.post(ctx, "oauth2/accessToken", "/v1.0/oauth2/accessToken", false,
		map[string]string{"appKey": a.id, "appSecret": a.secret}, &out)
	if err != nil {
		return "", err
	}
	if out.AccessToken == "" {
		return "", &apiError{Op: "oauth2/accessToken", Status: 200, Message: "the answer holds no accessToken"}
	}
	life := time.Duration(out.ExpireIn) * time.Second
	if life <= 0 {
		life = 2 * time.Hour
	}
	c.token, c.expires = out.AccessToken, now.Add(max(life-tokenEarly, life/2))
	return c.token, nil
}

// drop forgets the token, after DingTalk refused it.
func (c *tokenCache) drop() {
	c.mu.Lock()
	c.token = ""
	c.mu.Unlock()
}
