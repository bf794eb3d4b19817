// Package feishu is hermes's Feishu (and Lark) adapter: Feishu posts a
// self-built app's events and card callbacks to hermes over HTTP, each
// checked (signature, verification token, encryption) on its raw body
// before it is read, and hermes answers with interactive cards through
// the Open API, which it edits as a reply streams and which carry the
// approval buttons.
package feishu

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

// The Open API roots.
const (
	// DefaultBaseURL is Feishu's.
	DefaultBaseURL = "https://open.feishu.cn"
	// LarkBaseURL is Lark's, the international edition.
	LarkBaseURL = "https://open.larksuite.com"
)

// Options configure an Adapter.
type Options struct {
	// AppID and AppSecret are the app's credentials; the secret buys
	// the tenant_access_token and is never logged.
	AppID     string
	AppSecret string
	// VerificationToken is in every event Feishu posts; a post without
	// it is refused.
	VerificationToken string
	// EncryptKey, when set (as in the console), makes hermes require
	// encrypted, signed posts.
	EncryptKey string
	// BaseURL is the Open API root: DefaultBaseURL, LarkBaseURL, a proxy
	// or a test server.
	BaseURL string
	// Path is where the posts are taken; "" means /feishu/events.
	Path string
	// LongConnection receives events over a WebSocket hermes opens to
	// Feishu instead of posts to Path: no public address is needed, and
	// no verification token.
	LongConnection bool
	// Client makes the API calls; nil means a client of its own.
	Client *http.Client
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock stamps events, checks post timestamps and ages the token;
	// nil means the wall clock.
	Clock clock.Clock
}

// Adapter is the Feishu platform. Its methods are safe for concurrent use.
type Adapter struct {
	appID, appSecret string
	verifyToken      string
	encryptKey       string
	long             bool
	base             string
	path             string
	client           *http.Client
	log              *slog.Logger
	clock            clock.Clock
	token            tokenCache

	mu sync.Mutex
	// botOpenID is the bot's open_id, which tells the mentions of the
	// bot in a group; known once Receive has asked for it.
	botOpenID string
	// inlet holds Receive's deliver while it runs; before and after,
	// posts are refused with 503 so Feishu posts them again.
	inlet gateway.Inlet
	// answers are the card callbacks waiting for the text of their toast,
	// by event id.
	answers map[string]chan string
	// cards are the chats (with their threads) of the cards sent with
	// buttons, by message id: a card callback names only the chat.
	cards map[string]gateway.Chat
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	if !strings.HasPrefix(o.AppID, "cli_") {
		return nil, fmt.Errorf("feishu: app id %q is not an app id; give the one from the developer console, which starts with cli_", o.AppID)
	}
	if o.AppSecret == "" {
		return nil, fmt.Errorf("feishu: the app secret is empty; give the one from the console's Credentials page")
	}
	if o.VerificationToken == "" && !o.LongConnection {
		return nil, fmt.Errorf("feishu: the verification token is empty; give the one from Events & callbacks → Encryption strategy")
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("feishu: base_url %q is not an http or https URL; want the Open API root, %s or %s", base, DefaultBaseURL, LarkBaseURL)
	}
	path := o.Path
	if path == "" {
		path = "/feishu/events"
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("feishu: path %q does not start with /; give one such as /feishu/events", path)
	}
	a := &Adapter{
		appID: o.AppID, appSecret: o.AppSecret,
		verifyToken: o.VerificationToken, encryptKey: o.EncryptKey, long: o.LongConnection,
		base:    strings.TrimRight(base, "/"),
		path:    path,
		client:  o.Client,
		log:     o.Logger,
		clock:   clock.OrReal(o.Clock),
		answers: map[string]chan string{},
		cards:   map[string]gateway.Chat{},
	}
	if a.client == nil {
		a.client = &http.Client{Timeout: callTimeout}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "feishu")
	return a, nil
}

// Name returns "feishu".
func (a *Adapter) Name() string { return "feishu" }

// Feishu's limits, as hermes meets them.
const (
	// MaxCard is the most bytes a card's content may hold (30 KB).
	MaxCard = 30 << 10
	// MaxText is the most bytes of a reply's text as the card carries
	// it (Measure), leaving room for the card around it and its buttons.
	MaxText = MaxCard - 2<<10
	// MaxButtonData bounds a button's data; Feishu carries it in the
	// button's value object, which has no small limit of its own.
	MaxButtonData = 256
	// SendEvery paces sends and edits to one chat: Feishu allows five
	// calls a second per user and per group, shared by every bot there.
	SendEvery = 400 * time.Millisecond
)

// Caps returns Feishu's abilities: cards, edited as the reply streams,
// with buttons, and at most MaxText bytes of text a card as Measure
// counts them.
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{
		MaxText:       MaxText,
		Measure:       Measure,
		CanEdit:       true,
		Buttons:       true,
		MaxButtonData: MaxButtonData,
		SendEvery:     SendEvery,
	}
}

// botID returns the bot's open_id, "" until Receive learned it.
func (a *Adapter) botID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.botOpenID
}

var _ gateway.Platform = (*Adapter)(nil)
