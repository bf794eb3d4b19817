// Package telegram is hermes's Telegram adapter: it receives updates from
// the Bot API by long polling or by webhook, turns them into gateway
// Events, and sends replies rendered as Telegram HTML, so that no text the
// model writes can break a message's formatting.
package telegram

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// DefaultBaseURL is the public Bot API root.
const DefaultBaseURL = "https://api.telegram.org"

// Options configure an Adapter.
type Options struct {
	// Token is the bot token from @BotFather. It travels in every URL
	// path, so the adapter never logs a URL or an error holding it.
	Token string
	// BaseURL is the API root: the public one (the default), a
	// self-hosted Bot API server, a proxy or a test server.
	BaseURL string
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
	// PollTimeout is how long one getUpdates waits for updates; 0 means
	// 30 s.
	PollTimeout time.Duration
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times backoffs and stamps events; nil means the wall clock.
	Clock clock.Clock
	// Webhook, when set, receives updates by webhook instead of polling.
	Webhook *Webhook
	// Drafts streams replies in private chats as drafts
	// (sendMessageDraft) instead of editing a sent message.
	Drafts bool
}

// Adapter is the Telegram platform. Its methods are safe for concurrent
// use.
type Adapter struct {
	token   string
	base    string
	client  *http.Client
	poll    time.Duration
	log     *slog.Logger
	clock   clock.Clock
	mu      sync.Mutex
	botID   int64
	botName string
	// hook is webhook mode's state; nil when the adapter polls.
	hook *webhookState
	// drafts is Options.Drafts.
	drafts bool
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	if o.Token == "" {
		return nil, fmt.Errorf("telegram: the token is empty; give the bot token @BotFather issued (digits, a colon, then letters, digits, _ and -)")
	}
	if !isToken(o.Token) {
		// The value is a secret: say what is wrong without it.
		return nil, fmt.Errorf("telegram: the token (%d characters) is not a bot token; want digits, a colon, then letters, digits, _ and - as @BotFather issues it", len(o.Token))
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("telegram: base_url %q is not an http or https URL; want the Bot API root such as %s", base, DefaultBaseURL)
	}
	a := &Adapter{
		token:  o.Token,
		base:   strings.TrimRight(base, "/"),
		client: o.Client,
		poll:   o.PollTimeout,
		log:    o.Logger,
		clock:  clock.OrReal(o.Clock),
		drafts: o.Drafts,
	}
	if a.client == nil {
		a.client = &http.Client{}
	}
	if a.poll <= 0 {
		a.poll = 30 * time.Second
	}
	if t := a.client.Timeout; t > 0 && t <= a.poll {
		return nil, fmt.Errorf("telegram: the HTTP client's timeout %s is not longer than the poll timeout %s, so every long poll would fail; give a longer client timeout, none, or a shorter poll_timeout", t, a.poll)
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if o.Webhook != nil {
		if a.hook, err = checkWebhook(*o.Webhook, a.base, o.Token); err != nil {
			return nil, err
		}
	}
	a.log = a.log.With("platform", "telegram")
	return a, nil
}

// Name returns "telegram".
func (a *Adapter) Name() string { return "telegram" }

// Caps returns Telegram's limits: 4096 UTF-16 units of text, edits,
// inline buttons with 64 bytes of data, and about one send per second per
// chat. A bot that polls has one consumer (a second getUpdates ends the
// first); a bot on a webhook has as many as the webhook reaches.
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{
		OneConsumer:   a.hook == nil,
		MaxText:       MaxText,
		Measure:       UTF16Len,
		CanEdit:       true,
		Buttons:       true,
		MaxButtonData: MaxButtonData,
		SendEvery:     time.Second,
	}
}

// The Bot API's limits.
const (
	// MaxText is the longest message text, in UTF-16 code units.
	MaxText = 4096
	// MaxButtonData is the most bytes a button's callback_data holds.
	MaxButtonData = 64
	// MaxDownload is the largest file the cloud Bot API lets a bot
	// download.
	MaxDownload = 20 << 20
)

// UTF16Len is the length of s in UTF-16 code units, the unit of
// Telegram's text limit.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// bot returns the bot's id and username, known after Receive's getMe.
func (a *Adapter) bot() (int64, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.botID, a.botName
}

var _ gateway.Platform = (*Adapter)(nil)
