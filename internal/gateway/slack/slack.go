// Package slack is hermes's Slack adapter. It receives events over Socket
// Mode (a WebSocket hermes opens, so no public URL is needed) or, as the
// alternative, the Events API's HTTP callbacks, each checked against the
// signing secret before it is read; it replies in the message's thread
// with chat.postMessage, streams by chat.update, and asks for approvals
// with Block Kit buttons. Text is rendered as Slack mrkdwn with '&', '<'
// and '>' escaped, so nothing the model writes can ping a channel or
// forge a link.
package slack

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// DefaultBaseURL is the public Web API root.
const DefaultBaseURL = "https://slack.com/api"

// DefaultEventsPath is where hermes answers the Events API's posts when
// no path is given.
const DefaultEventsPath = "/slack/events"

// Options configure an Adapter.
type Options struct {
	// BotToken (xoxb-…) authorizes every Web API call the bot makes.
	BotToken string
	// AppToken (xapp-…, scope connections:write) opens Socket Mode
	// connections; when it is set the adapter uses Socket Mode.
	AppToken string
	// SigningSecret checks the Events API's posts; it is needed when
	// AppToken is empty, and the adapter then takes events over HTTP.
	SigningSecret string
	// EventsPath is the path hermes answers the Events API and
	// interactivity posts on; "" means DefaultEventsPath.
	EventsPath string
	// BaseURL is the Web API root: the public one (the default), a proxy
	// or a test server.
	BaseURL string
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times backoffs, pings and the signature's tolerance, and
	// stamps events; nil means the wall clock.
	Clock clock.Clock
	// PingEvery is how often a Socket Mode connection is pinged to find
	// it dead; 0 means 30 s, a negative value never.
	PingEvery time.Duration
}

// Adapter is the Slack platform. Its methods are safe for concurrent use.
type Adapter struct {
	botToken string
	appToken string
	secret   string
	path     string
	base     string
	client   *http.Client
	log      *slog.Logger
	clock    clock.Clock
	ping     time.Duration

	mu sync.Mutex
	// botUser is the bot's user id (U…), known after auth.test:
	// mentions name it.
	botUser string
	// answered are the threads hermes has posted in.
	answered threads
	// held are the channels Slack asked to wait.
	held holds
	// inlet holds Receive's deliver in Events API mode while it runs; before
	// and after, posts are refused with 503 so Slack retries them.
	inlet gateway.Inlet
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	if err := checkToken("bot_token", o.BotToken, "xoxb-", "the Bot User OAuth Token from the app's OAuth & Permissions page"); err != nil {
		return nil, err
	}
	if o.AppToken != "" {
		if err := checkToken("app_token", o.AppToken, "xapp-", "an app-level token with connections:write from the app's Basic Information page"); err != nil {
			return nil, err
		}
	} else if o.SigningSecret == "" {
		return nil, fmt.Errorf("slack: neither app_token nor signing_secret is set; give app_token (xapp-…) for Socket Mode, or signing_secret to take the Events API over HTTP")
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("slack: base_url %q is not an http or https URL; want the Web API root such as %s", base, DefaultBaseURL)
	}
	path := o.EventsPath
	if path == "" {
		path = DefaultEventsPath
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("slack: events_path %q does not start with /; give a URL path such as %s", path, DefaultEventsPath)
	}
	a := &Adapter{
		botToken: o.BotToken,
		appToken: o.AppToken,
		secret:   o.SigningSecret,
		path:     path,
		base:     strings.TrimRight(base, "/"),
		client:   o.Client,
		log:      o.Logger,
		clock:    clock.OrReal(o.Clock),
		ping:     o.PingEvery,
	}
	if a.ping == 0 {
		a.ping = pingEvery
	}
	if a.client == nil {
		a.client = &http.Client{}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "slack")
	return a, nil
}

// checkToken says what is wrong with a token without showing it.
func checkToken(key, tok, prefix, what string) error {
	if tok == "" {
		return fmt.Errorf("slack: %s is empty; give %s (it starts with %s)", key, what, prefix)
	}
	if !strings.HasPrefix(tok, prefix) || strings.ContainsAny(tok, " \t\r\n") {
		return fmt.Errorf("slack: %s (%d characters) does not look like %s; it starts with %s and has no spaces", key, len(tok), what, prefix)
	}
	return nil
}

// Name returns "slack".
func (a *Adapter) Name() string { return "slack" }

// Caps returns Slack's limits: MaxText bytes of rendered mrkdwn, edits,
// Block Kit buttons whose value holds up to MaxButtonData, and about one
// message per second per channel.
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{
		// Over Socket Mode events come to the connection hermes opens,
		// one per app; over the Events API, to every replica's listener.
		OneConsumer:   a.appToken != "",
		MaxText:       MaxText,
		Measure:       Measure,
		CanEdit:       true,
		Buttons:       true,
		MaxButtonData: MaxButtonData,
		SendEvery:     time.Second,
	}
}

// Slack's limits.
const (
	// MaxText is the most bytes of mrkdwn one message carries. Slack
	// truncates chat.postMessage text past 40,000 characters, but
	// refuses a chat.update whose text is over 4,000 bytes
	// (msg_too_long), and replies stream by chat.update: 4,000 bytes
	// fit both.
	MaxText = 4000
	// MaxSection is the most characters of text one section block
	// holds; a message with buttons carries its text in sections.
	MaxSection = 3000
	// MaxButtonData is the most characters of a button's value.
	MaxButtonData = 2000
)

// Measure is the size of Markdown text once rendered as mrkdwn, in bytes:
// escaping makes '&' five bytes, so the limit is measured on what is
// sent.
func Measure(md string) int { return len(RenderMrkdwn(md)) }

// bot returns the bot's user id, known after auth.test.
func (a *Adapter) bot() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.botUser
}

var _ gateway.Platform = (*Adapter)(nil)
