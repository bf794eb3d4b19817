package config

// Gateway is the gateway section: how hermes serve answers people on chat
// platforms. A platform is on when its credentials are set.
type Gateway struct {
	// UnauthorizedDMBehavior is what a direct message from someone not
	// allowed gets: pair (a pairing code to give the owner, the default)
	// or ignore.
	UnauthorizedDMBehavior DMBehavior `yaml:"unauthorized_dm_behavior"`
	// Allow lists users allowed on every platform: platform user ids or
	// email addresses.
	Allow []string `yaml:"allow"`
	// GroupSessionsPerUser gives each person in a group a session of
	// their own (true, the default) instead of one per group.
	GroupSessionsPerUser Flag `yaml:"group_sessions_per_user"`
	// RequireMention makes groups answered only when the bot is
	// mentioned or replied to (true, the default).
	RequireMention Flag `yaml:"require_mention"`
	// Reset starts a chat's session afresh: never (none, the default),
	// after idle minutes, or daily at an hour.
	Reset SessionReset `yaml:"reset"`
	// Busy is what a message to a chat whose turn is running does:
	// interrupt it (the default) or queue behind it.
	Busy BusyMode `yaml:"busy"`
	// MaxInboundMediaBytes caps a file received from a chat (20 MB).
	MaxInboundMediaBytes int64 `yaml:"max_inbound_media_bytes"`
	// Telegram is the Telegram bot.
	Telegram TelegramGateway `yaml:"telegram"`
	// Matrix is the Matrix account.
	Matrix MatrixGateway `yaml:"matrix"`
	// Webhook is the inbound HTTP routes.
	Webhook WebhookGateway `yaml:"webhook"`
}

// WebhookGateway is gateway.webhook: routes other services call.
type WebhookGateway struct {
	// Listen is the address hermes serve answers them on
	// (127.0.0.1:8644 by default; put a TLS proxy in front to expose it).
	Listen string `yaml:"listen"`
	// Routes are the routes by name; none leaves the listener off.
	Routes map[string]WebhookRoute `yaml:"routes"`
}

// WebhookRoute is one route of gateway.webhook.routes.
type WebhookRoute struct {
	// Path is the URL path, starting with /.
	Path string `yaml:"path"`
	// Auth is how a call is checked: github (X-Hub-Signature-256),
	// standard (Standard Webhooks or Svix signatures, whsec_ secrets) or
	// bearer (Authorization: Bearer SECRET).
	Auth WebhookAuth `yaml:"auth"`
	// Secret is the signing key or token (usually ${VAR} from .env).
	Secret Secret `yaml:"secret"`
	// Prompt is the turn's message, a Go template over the JSON payload
	// ({{.action}}, {{json .}}).
	Prompt string `yaml:"prompt"`
	// Deliver is where the turn's answer goes, as a job's deliver:.
	Deliver []string `yaml:"deliver"`
	// Toolsets are the tools the turn may use: the payload is someone
	// else's text, so only web by default.
	Toolsets []string `yaml:"toolsets"`
}

// WebhookAuth is how a webhook route checks its callers.
type WebhookAuth string

// UnmarshalText accepts github, standard or bearer.
func (a *WebhookAuth) UnmarshalText(text []byte) error {
	return oneOf(a, text, false, WebhookAuth("github"), WebhookAuth("standard"), WebhookAuth("bearer"))
}

// TelegramGateway is gateway.telegram.
type TelegramGateway struct {
	// Token is the bot token from @BotFather (usually
	// TELEGRAM_BOT_TOKEN in .env); empty leaves Telegram off.
	Token Secret `yaml:"token"`
	// BaseURL is the Bot API root: a self-hosted Bot API server or a
	// proxy; empty means https://api.telegram.org.
	BaseURL string `yaml:"base_url" check:"url"`
	// AllowAll answers everyone who writes to the bot. Off by default:
	// anyone can find a bot.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the Telegram user ids allowed besides paired users.
	Allow []string `yaml:"allow"`
	// Approvers are the user ids whose button presses approve commands;
	// empty means anyone allowed in the chat.
	Approvers []string `yaml:"approvers"`
	// Webhook, when its url is set, has Telegram post updates to hermes
	// instead of hermes polling for them.
	Webhook TelegramWebhook `yaml:"webhook"`
}

// TelegramWebhook is gateway.telegram.webhook.
type TelegramWebhook struct {
	// URL is the public HTTPS address Telegram posts to (a TLS proxy in
	// front of gateway.webhook.listen); hermes answers on its path.
	URL string `yaml:"url" check:"url"`
	// Secret is what Telegram sends back in every post's
	// X-Telegram-Bot-Api-Secret-Token; empty derives one from the token.
	Secret Secret `yaml:"secret"`
	// MaxConnections is how many posts Telegram makes at once (1-100;
	// 0 is Telegram's default, 40).
	MaxConnections int `yaml:"max_connections"`
}

// SessionReset is gateway.reset.
type SessionReset struct {
	// Mode is none, idle or daily.
	Mode ResetMode `yaml:"mode"`
	// IdleMinutes is the idle time after which mode idle starts afresh.
	IdleMinutes int `yaml:"idle_minutes"`
	// AtHour is the hour (0–23, in timezone) at which mode daily starts
	// afresh.
	AtHour int `yaml:"at_hour"`
}

// DMBehavior is what an unauthorized direct message gets.
type DMBehavior string

// The behaviours for unauthorized direct messages.
const (
	DMPair   DMBehavior = "pair"
	DMIgnore DMBehavior = "ignore"
)

// UnmarshalText accepts pair or ignore.
func (b *DMBehavior) UnmarshalText(text []byte) error {
	return oneOf(b, text, false, DMPair, DMIgnore)
}

// ResetMode is when a chat's session starts afresh.
type ResetMode string

// The reset modes.
const (
	ResetNone  ResetMode = "none"
	ResetIdle  ResetMode = "idle"
	ResetDaily ResetMode = "daily"
)

// UnmarshalText accepts none, idle or daily.
func (m *ResetMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, false, ResetNone, ResetIdle, ResetDaily)
}

// BusyMode is what a message to a busy chat does.
type BusyMode string

// The busy modes.
const (
	BusyInterrupt BusyMode = "interrupt"
	BusyQueue     BusyMode = "queue"
)

// UnmarshalText accepts interrupt or queue.
func (m *BusyMode) UnmarshalText(text []byte) error {
	return oneOf(m, text, false, BusyInterrupt, BusyQueue)
}

// defaultGateway is the gateway section's defaults.
func defaultGateway() Gateway {
	return Gateway{
		UnauthorizedDMBehavior: DMPair,
		Reset:                  SessionReset{Mode: ResetNone, IdleMinutes: 24 * 60, AtHour: 4},
		Busy:                   BusyInterrupt,
		MaxInboundMediaBytes:   20 << 20,
		Webhook:                WebhookGateway{Listen: "127.0.0.1:8644"},
	}
}
