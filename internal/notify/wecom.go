package notify

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// WeComLimit is the most bytes of Markdown a WeCom group robot accepts in
// one message (UTF-8: a Chinese character takes three).
const WeComLimit = 4096

// weCom rate-limit and busy codes: 45009 is the robot's 20-a-minute
// limit, -1 means the system is busy.
const (
	weComRateLimited = 45009
	weComBusy        = -1
)

// weComTarget posts Markdown to a WeCom (企业微信) group robot.
type weComTarget struct {
	url    string
	key    string
	client *http.Client
}

func newWeCom(rest string, cfg Config) (*weComTarget, error) {
	t := &weComTarget{client: cfg.client()}
	if isURL(rest) {
		u, err := parseHTTPURL(rest)
		if err != nil {
			return nil, err
		}
		t.key = u.Query().Get("key")
		if t.key == "" {
			return nil, fmt.Errorf("the webhook URL has no key= parameter")
		}
		t.url = rest
		return t, nil
	}
	if strings.ContainsAny(rest, " /?&#") {
		return nil, fmt.Errorf("a robot key has no spaces or URL characters")
	}
	t.key = rest
	t.url = orDefault(cfg.WeComURL, DefaultWeComURL) + "?key=" + url.QueryEscape(rest)
	return t, nil
}

func (t *weComTarget) String() string    { return "wecom:" + tail(t.key) }
func (t *weComTarget) secrets() []string { return []string{t.url, t.key} }

// Split cuts the message to WeComLimit bytes: a group robot has no
// notion of a series, and ten messages would hit its rate limit.
func (t *weComTarget) Split(msg Message) []Part {
	return single(msg, fit(msg, compose(msg, boldTitle), WeComLimit, bytesUnit))
}

func (t *weComTarget) Send(ctx context.Context, p Part) error {
	body := map[string]any{
		"msgtype":  "markdown",
		"markdown": map[string]string{"content": p.Text},
	}
	r, err := postJSON(ctx, t.client, "wecom", t.url, body)
	if err != nil {
		return err
	}
	if err := checkStatus("wecom", r); err != nil {
		return err
	}
	var ans struct {
		ErrCode int    `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
	}
	if err := decode("wecom", r, &ans); err != nil {
		return err
	}
	return codeError("wecom", ans.ErrCode, ans.ErrMsg, ans.ErrCode == weComRateLimited || ans.ErrCode == weComBusy)
}

// codeError turns a platform's error code into a SendError: nil for 0,
// transient when the code is a rate limit or a busy signal.
func codeError(what string, code int, msg string, transient bool) error {
	if code == 0 {
		return nil
	}
	e := &SendError{Msg: fmt.Sprintf("%s: error %d: %s", what, code, msg), Transient: transient}
	if transient {
		e.Msg += " (rate limited or busy)"
	}
	return e
}
