// Package wecom is hermes's WeCom (企业微信) adapter, in two forms. App is
// a self-built application: WeCom posts each message, signed and
// encrypted, to hermes's callback URL, and hermes answers later through
// message/send, because WeCom gives a callback five seconds and the model
// takes longer. Bot is an AI bot (智能机器人) on WeCom's long connection:
// hermes dials out, so it needs no public URL, and its replies stream.
package wecom

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomcrypt"
)

// DefaultBaseURL is WeCom's API root.
const DefaultBaseURL = "https://qyapi.weixin.qq.com"

// DefaultCallbackPath is where App answers WeCom's callbacks when no path
// is given.
const DefaultCallbackPath = "/wecom"

// MaxText is the longest text message/send delivers whole, in UTF-8
// bytes (a CJK character counts three); WeCom cuts longer ones.
const MaxText = 2048

// AppOptions configure an App.
type AppOptions struct {
	// CorpID is the company's id (企业ID, "ww…"); every callback must be
	// sealed for it.
	CorpID string
	// AgentID is the app's AgentId.
	AgentID int64
	// Secret is the app's Secret, for gettoken. It travels in a URL, so
	// the adapter never logs a URL or an error holding it.
	Secret string
	// Token and EncodingAESKey are the app's API-receive settings: the
	// callbacks' signature key and encryption key.
	Token          string
	EncodingAESKey string
	// BaseURL is the API root: WeCom's (the default), a proxy, or a test
	// server.
	BaseURL string
	// CallbackPath is the URL path hermes answers callbacks on, on
	// gateway.webhook.listen; "" means /wecom.
	CallbackPath string
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock checks callback timestamps, ages the access token and stamps
	// events; nil means the wall clock.
	Clock clock.Clock
}

// App is a WeCom self-built application. Its methods are safe for
// concurrent use.
type App struct {
	corpID  string
	agentID int64
	secret  string
	base    string
	path    string
	crypt   *wecomcrypt.Crypter
	client  *http.Client
	log     *slog.Logger
	clock   clock.Clock
	token   tokenCache
	limits  limits

	// inlet holds Receive's deliver while it runs; before and after,
	// callbacks are refused with 503 so WeCom posts them again.
	inlet gateway.Inlet
}

// NewApp checks o and returns an App; it makes no request until a send.
func NewApp(o AppOptions) (*App, error) {
	if !isCorpID(o.CorpID) {
		return nil, fmt.Errorf("wecom: corp_id %q is not a corp id; want the 企业ID from My Company → Company Info, letters and digits such as ww1234567890abcdef", o.CorpID)
	}
	if o.AgentID <= 0 {
		return nil, fmt.Errorf("wecom: agent_id %d is not an AgentId; want the positive number on the app's page, such as 1000002", o.AgentID)
	}
	if o.Secret == "" {
		return nil, fmt.Errorf("wecom: the app secret is empty; give the Secret shown on the app's page")
	}
	crypt, err := wecomcrypt.New(o.Token, o.EncodingAESKey, o.CorpID)
	if err != nil {
		return nil, fmt.Errorf("wecom: %w", err)
	}
	base, err := baseURL(o.BaseURL, DefaultBaseURL, "http", "https")
	if err != nil {
		return nil, err
	}
	path := o.CallbackPath
	if path == "" {
		path = DefaultCallbackPath
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("wecom: callback_path %q does not start with /; give the path of the URL set as the app's API receive URL, such as /wecom", path)
	}
	a := &App{corpID: o.CorpID, agentID: o.AgentID, secret: o.Secret, base: base, path: path, crypt: crypt,
		client: o.Client, log: o.Logger, clock: clock.OrReal(o.Clock)}
	if a.client == nil {
		a.client = &http.Client{Timeout: callTimeout}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "wecom")
	return a, nil
}

// baseURL checks a configured API root and trims its slash.
func baseURL(s, def string, schemes ...string) (string, error) {
	if s == "" {
		s = def
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || !slices.Contains(schemes, u.Scheme) {
		return "", fmt.Errorf("wecom: base url %q is not a %s URL; want an API root such as %s", s, strings.Join(schemes, " or "), def)
	}
	return strings.TrimRight(s, "/"), nil
}

// isCorpID reports whether s looks like a corp id: letters and digits.
func isCorpID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Name returns "wecom".
func (a *App) Name() string { return "wecom" }

// Caps returns the app's limits: 2048 bytes of text, no edits, no
// buttons (approvals are answered with /approve and /deny), and a pace
// that keeps under WeCom's 30 messages a minute to one member.
func (a *App) Caps() gateway.Caps {
	return gateway.Caps{MaxText: MaxText, SendEvery: 2 * time.Second}
}

var _ gateway.Platform = (*App)(nil)
