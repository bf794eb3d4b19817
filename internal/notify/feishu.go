package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/clock"
)

// FeishuLimit keeps a Feishu message well under the custom bot's 20 KB
// request limit, in bytes of UTF-8.
const FeishuLimit = 18000

// Feishu codes that mean "too fast": 9499 from the custom bot gateway,
// 11232 the tenant-wide message limit, 230020 the per-chat limit.
func feishuRateLimited(code int) bool {
	return code == 9499 || code == 11232 || code == 230020
}

// feishuTarget posts text to a Feishu (飞书) custom bot, signed when the
// bot has a signing secret.
type feishuTarget struct {
	url    string
	secret string
	client *http.Client
	clock  clock.Clock
}

func newFeishu(rest string, cfg Config) (*feishuTarget, error) {
	base, secret := splitSecret(rest)
	t := &feishuTarget{secret: secret, client: cfg.client(), clock: cfg.clock()}
	if isURL(base) {
		if _, err := parseHTTPURL(base); err != nil {
			return nil, err
		}
		t.url = base
	} else {
		if strings.ContainsAny(base, " /?&") {
			return nil, fmt.Errorf("a hook token has no spaces or URL characters")
		}
		t.url = strings.TrimSuffix(orDefault(cfg.FeishuURL, DefaultFeishuURL), "/") + "/" + base
	}
	return t, nil
}

func (t *feishuTarget) String() string {
	hook := t.url[strings.LastIndexByte(t.url, '/')+1:]
	return "feishu:" + tail(hook)
}

func (t *feishuTarget) secrets() []string {
	return []string{t.url, t.url[strings.LastIndexByte(t.url, '/')+1:], t.secret}
}

func (t *feishuTarget) Split(msg Message) []Part {
	return single(msg, fit(msg, compose(msg, plainTitle), FeishuLimit, bytesUnit))
}

func (t *feishuTarget) Send(ctx context.Context, p Part) error {
	body := map[string]any{
		"msg_type": "text",
		"content":  map[string]string{"text": p.Text},
	}
	if t.secret != "" {
		ts := strconv.FormatInt(t.clock.Now().Unix(), 10)
		body["timestamp"] = ts
		body["sign"] = FeishuSign(ts, t.secret)
	}
	r, err := postJSON(ctx, t.client, "feishu", t.url, body)
	if err != nil {
		return err
	}
	// Feishu answers some refusals with HTTP 400 and a code in the body:
	// read the code first so a rate limit is retried.
	var ans struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}
	if jsonErr := decode("feishu", r, &ans); jsonErr == nil && ans.Code != 0 {
		return codeError("feishu", ans.Code, ans.Msg, feishuRateLimited(ans.Code) || r.status >= 500)
	}
	if err := checkStatus("feishu", r); err != nil {
		return err
	}
	return decode("feishu", r, &ans)
}

// FeishuSign computes a Feishu custom bot signature: HMAC-SHA256 keyed by
// "timestamp\nsecret" over an empty message, base64-encoded. timestamp is
// in seconds.
func FeishuSign(timestamp, secret string) string {
	h := hmac.New(sha256.New, []byte(timestamp+"\n"+secret))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}
