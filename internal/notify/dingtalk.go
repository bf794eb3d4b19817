package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/clock"
)

// DingTalkLimit keeps a DingTalk Markdown message under the robot's
// 20,000-byte limit, in bytes of UTF-8.
const DingTalkLimit = 18000

// DingTalk codes that mean "too fast": a custom robot takes 20 messages
// a minute.
func dingTalkRateLimited(code int) bool {
	return code == 130101 || code == 410100
}

// dingTalkTarget posts Markdown to a DingTalk (钉钉) custom robot, signed
// when the robot has a signing secret.
type dingTalkTarget struct {
	url    string
	token  string
	secret string
	client *http.Client
	clock  clock.Clock
}

func newDingTalk(rest string, cfg Config) (*dingTalkTarget, error) {
	base, secret := splitSecret(rest)
	t := &dingTalkTarget{secret: secret, client: cfg.client(), clock: cfg.clock()}
	if isURL(base) {
		u, err := parseHTTPURL(base)
		if err != nil {
			return nil, err
		}
		t.token = u.Query().Get("access_token")
		if t.token == "" {
			return nil, fmt.Errorf("the webhook URL has no access_token= parameter")
		}
		t.url = base
		return t, nil
	}
	if strings.ContainsAny(base, " /?&") {
		return nil, fmt.Errorf("an access token has no spaces or URL characters")
	}
	t.token = base
	t.url = orDefault(cfg.DingTalkURL, DefaultDingTalkURL) + "?access_token=" + url.QueryEscape(base)
	return t, nil
}

func (t *dingTalkTarget) String() string    { return "dingtalk:" + tail(t.token) }
func (t *dingTalkTarget) secrets() []string { return []string{t.url, t.token, t.secret} }

func (t *dingTalkTarget) Split(msg Message) []Part {
	return single(msg, fit(msg, compose(msg, boldTitle), DingTalkLimit, bytesUnit))
}

func (t *dingTalkTarget) Send(ctx context.Context, p Part) error {
	title := p.Msg.Title
	if title == "" {
		title = orDefault(p.Msg.Job, "hermes")
	}
	body := map[string]any{
		"msgtype":  "markdown",
		"markdown": map[string]string{"title": title, "text": p.Text},
	}
	endpoint := t.url
	if t.secret != "" {
		ts := strconv.FormatInt(t.clock.Now().UnixMilli(), 10)
		q := url.Values{"timestamp": {ts}, "sign": {DingTalkSign(ts, t.secret)}}
		endpoint += "&" + q.Encode()
	}
	r, err := postJSON(ctx, t.client, "dingtalk", endpoint, body)
	if err != nil {
		return err
	}
	if err := checkStatus("dingtalk", r); err != nil {
		return err
	}
	var ans struct {
		ErrCode int    `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
	}
	if err := decode("dingtalk", r, &ans); err != nil {
		return err
	}
	return codeError("dingtalk", ans.ErrCode, ans.ErrMsg, dingTalkRateLimited(ans.ErrCode))
}

// DingTalkSign computes a DingTalk custom robot signature: HMAC-SHA256
// keyed by the secret over "timestamp\nsecret", base64-encoded (the
// caller URL-encodes it into the query). timestamp is in milliseconds.
func DingTalkSign(timestamp, secret string) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(timestamp + "\n" + secret))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}
