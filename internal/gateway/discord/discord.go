// Package discord is hermes's Discord adapter: it receives messages and
// button presses over the Gateway WebSocket (identify, heartbeats checked
// by their ACKs, resume after a dropped connection) and answers through
// the REST API, keeping to Discord's rate-limit buckets. Model text is
// sent as the Markdown it is, with every mention that could ping someone
// defused and allowed_mentions empty, so a reply can never ping anyone.
package discord

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// The public endpoints.
const (
	// DefaultBaseURL is the REST API root, version 10.
	DefaultBaseURL = "https://discord.com/api/v10"
)

// Discord's limits.
const (
	// MaxText is the longest message content, in Unicode code points
	// (Discord's API counts code points).
	MaxText = 2000
	// MaxButtonData is the longest custom_id of a button.
	MaxButtonData = 100
	// maxButtonLabel is the longest label of a button.
	maxButtonLabel = 80
)

// Intents are the Gateway intents hermes identifies with: guild messages,
// direct messages and their content. MESSAGE_CONTENT is privileged: it
// must also be switched on in the developer portal, or Discord closes the
// connection with 4014.
const Intents = 1<<9 | 1<<12 | 1<<15

// Options configure an Adapter.
type Options struct {
	// Token is the bot token from the developer portal. It goes in the
	// Authorization header and in Identify, never in a URL, a log line or
	// an error.
	Token string
	// BaseURL is the REST root: the public one (the default), a proxy or
	// a test server.
	BaseURL string
	// GatewayURL is the WebSocket address to connect to; empty asks
	// GET /gateway/bot for it.
	GatewayURL string
	// Client makes the REST requests and opens the Gateway connection
	// (a proxy in its transport applies to both); nil means a client of
	// its own.
	Client *http.Client
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times backoffs, heartbeats and rate limits; nil means the
	// wall clock.
	Clock clock.Clock
	// Jitter returns a number in [0, 1) that spreads the first heartbeat
	// and the waits after an invalid session; nil means math/rand.
	Jitter func() float64
	// Session keeps the Gateway session (its id, resume address and the
	// last event taken) where the next process receiving for the bot
	// finds it: a replica taking over from one that died resumes the
	// session, and Discord replays the events sent meanwhile, instead of
	// starting a new one that never gets them. nil keeps it in memory.
	Session SessionStore
}

// SessionStore keeps the Gateway session as an opaque string the
// adapter writes; Load returns "" when none was saved.
type SessionStore interface {
	Load(ctx context.Context) (string, error)
	Save(ctx context.Context, session string) error
}

// Adapter is the Discord platform. Its methods are safe for concurrent
// use.
type Adapter struct {
	token      string
	base       string
	gatewayURL string
	client     *http.Client
	log        *slog.Logger
	clock      clock.Clock
	jitter     func() float64
	limits     *limiter
	presses    *presses
	sessions   SessionStore

	mu    sync.Mutex
	botID string
	appID string
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	if err := checkToken(o.Token); err != nil {
		return nil, err
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("discord: base_url %q is not an http or https URL; want the REST root such as %s", base, DefaultBaseURL)
	}
	if g := o.GatewayURL; g != "" {
		if u, err := url.Parse(g); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return nil, fmt.Errorf("discord: gateway_url %q is not a ws or wss URL; want the Gateway address such as wss://gateway.discord.gg, or leave it empty to ask Discord", g)
		}
	}
	a := &Adapter{
		token:      o.Token,
		base:       strings.TrimRight(base, "/"),
		gatewayURL: o.GatewayURL,
		sessions:   o.Session,
		client:     o.Client,
		log:        o.Logger,
		clock:      clock.OrReal(o.Clock),
		jitter:     o.Jitter,
	}
	if a.client == nil {
		a.client = &http.Client{}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.jitter == nil {
		a.jitter = rand.Float64
	}
	a.log = a.log.With("platform", "discord")
	a.limits = newLimiter(a.clock)
	a.presses = newPresses(a.clock)
	return a, nil
}

// checkToken refuses a token that cannot be a bot token, without saying
// what it holds.
func checkToken(t string) error {
	switch {
	case t == "":
		return fmt.Errorf("discord: the token is empty; give the bot token from the developer portal (Bot → Reset Token)")
	case strings.HasPrefix(strings.ToLower(t), "bot "):
		return fmt.Errorf("discord: the token starts with \"Bot \"; give the token alone, hermes adds the prefix")
	case strings.Count(t, ".") != 2 || strings.ContainsAny(t, " \t\r\n"):
		return fmt.Errorf("discord: the token (%d characters) is not a bot token; want three dot-separated parts as the developer portal shows it", len(t))
	}
	return nil
}

// Name returns "discord".
func (a *Adapter) Name() string { return "discord" }

// Caps returns Discord's limits: 2000 code points of content (counted
// with the room defused mentions take), edits, buttons with 100
// characters of custom_id, and about one send per second per channel.
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{
		OneConsumer:   true, // one gateway session per bot
		MaxText:       MaxText,
		Measure:       Len,
		CanEdit:       true,
		Buttons:       true,
		MaxButtonData: MaxButtonData,
		SendEvery:     time.Second,
	}
}

// bot returns the bot's user id and its application's id, known after
// READY.
func (a *Adapter) bot() (botID, appID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.botID, a.appID
}

var _ gateway.Platform = (*Adapter)(nil)
