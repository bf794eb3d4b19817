package config

import (
	"fmt"
	"net"
	"net/mail"
	"strings"
	"time"
)

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
	// DingTalk is the DingTalk app robot.
	DingTalk DingTalkGateway `yaml:"dingtalk"`
	// Feishu is the Feishu (Lark) app.
	Feishu FeishuGateway `yaml:"feishu"`
	// Discord is the Discord bot.
	Discord DiscordGateway `yaml:"discord"`
	// WeCom is the WeCom (企业微信) app and AI bot.
	WeCom WeComGateway `yaml:"wecom"`
	// Matrix is the Matrix account.
	Matrix MatrixGateway `yaml:"matrix"`
	// Webhook is the inbound HTTP routes.
	Webhook WebhookGateway `yaml:"webhook"`
	// Email is the mailbox hermes reads and answers.
	Email EmailGateway `yaml:"email"`
	// Slack is the Slack app's bot.
	Slack SlackGateway `yaml:"slack"`
}

// EmailGateway is gateway.email: a mailbox read over IMAP and answered
// over SMTP. It is on when imap.addr is set.
type EmailGateway struct {
	// IMAP is where mail is read (port 993 with tls, 143 with starttls).
	IMAP MailServer `yaml:"imap"`
	// SMTP is where replies are sent (587 with starttls, 465 with tls).
	SMTP MailServer `yaml:"smtp"`
	// Username and Password log in to both servers (an app password for
	// Gmail or Outlook; usually ${EMAIL_PASSWORD} from .env).
	Username string `yaml:"username"`
	Password Secret `yaml:"password"`
	// Address is hermes's own address: the From of its replies, and mail
	// from it is never answered (a mail loop).
	Address string `yaml:"address"`
	// Mailbox is the folder read (INBOX by default).
	Mailbox string `yaml:"mailbox"`
	// AuthservID is the name the receiving mail server writes in the
	// Authentication-Results of each mail (mx.google.com at Gmail): when
	// set, a mail is answered only if that record shows DKIM or DMARC
	// passing for the sender's domain, so a forged From gets nowhere.
	AuthservID string `yaml:"authserv_id"`
	// PollEvery is how often the mailbox is searched when the server
	// cannot IDLE (60s by default).
	PollEvery time.Duration `yaml:"poll_every"`
	// AllowAll answers every sender. Off by default: a From line is
	// easily forged.
	AllowAll bool `yaml:"allow_all"`
	// Allow lists the sender addresses answered besides paired users.
	Allow []string `yaml:"allow"`
}

// MailServer is one mail server: its address and how the connection is
// secured.
type MailServer struct {
	// Addr is host:port.
	Addr string `yaml:"addr"`
	// TLS is none (plain text, for a server on this machine), starttls
	// or tls (implicit TLS).
	TLS MailTLS `yaml:"tls"`
}

// MailTLS is how a mail connection is secured.
type MailTLS string

// The ways to secure a mail connection.
const (
	MailTLSNone     MailTLS = "none"
	MailTLSStartTLS MailTLS = "starttls"
	MailTLSImplicit MailTLS = "tls"
)

// UnmarshalText accepts none, starttls or tls.
func (m *MailTLS) UnmarshalText(text []byte) error {
	return oneOf(m, text, false, MailTLSNone, MailTLSStartTLS, MailTLSImplicit)
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
	// Drafts shows a reply being written in a private chat as a draft
	// (true, the default) instead of editing a message as it grows.
	Drafts Flag `yaml:"drafts"`
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
		Email: EmailGateway{IMAP: MailServer{TLS: MailTLSImplicit}, SMTP: MailServer{TLS: MailTLSStartTLS},
			Mailbox: "INBOX", PollEvery: time.Minute},
	}
}

// validateEmail checks gateway.email when it is on (imap.addr set): both
// servers, the login, hermes's own address and the allowlist. Plain text
// (tls: none) is accepted only for a server on this machine, because the
// password would cross the network readable.
func validateEmail(e *EmailGateway, where func(key string) string) []error {
	if e.IMAP.Addr == "" {
		return nil
	}
	var errs []error
	bad := func(key, value, prob string) {
		key = "gateway.email." + key
		errs = append(errs, badValue(where(key), key, value, prob))
	}
	for _, s := range []struct {
		key    string
		server MailServer
	}{{"imap", e.IMAP}, {"smtp", e.SMTP}} {
		host, port, err := net.SplitHostPort(s.server.Addr)
		switch {
		case s.server.Addr == "":
			bad(s.key+".addr", "", "is not accepted; email needs both servers: use host:port, like mail.example.com:"+map[string]string{"imap": "993", "smtp": "587"}[s.key])
		case err != nil || host == "" || port == "":
			bad(s.key+".addr", s.server.Addr, "is not accepted; use host:port, like mail.example.com:"+map[string]string{"imap": "993", "smtp": "587"}[s.key])
		case s.server.TLS == MailTLSNone && !loopbackHost(host):
			bad(s.key+".tls", string(s.server.TLS), "is not accepted for "+host+": without TLS the password crosses the network readable; use starttls or tls (none is for a server on this machine)")
		}
	}
	if e.Username == "" {
		bad("username", "", "is not accepted; give the mailbox's login (often the address itself)")
	}
	if e.Password == "" {
		bad("password", "", "is not accepted; give the mailbox's password or app password, usually ${EMAIL_PASSWORD} with the value in .env")
	}
	if a, err := mail.ParseAddress(e.Address); err != nil || a.Name != "" {
		bad("address", e.Address, "is not accepted; give hermes's own address, like hermes@example.com (it is the From of replies)")
	}
	if id := e.AuthservID; id != "" && (strings.ContainsAny(id, " ;()\t") || !strings.Contains(id, ".")) {
		bad("authserv_id", id, "is not accepted; give the receiving server's name as it writes it in Authentication-Results, like mx.google.com")
	}
	if strings.TrimSpace(e.Mailbox) == "" {
		bad("mailbox", e.Mailbox, "is not accepted; name the folder to read, like INBOX")
	}
	if e.PollEvery < time.Second {
		bad("poll_every", e.PollEvery.String(), "is not accepted; use a duration of a second or more, like 60s")
	}
	for i, addr := range e.Allow {
		if a, err := mail.ParseAddress(addr); err != nil || a.Name != "" {
			bad(fmt.Sprintf("allow[%d]", i), addr, "is not accepted; list bare addresses, like ana@example.com")
		}
	}
	return errs
}

// loopbackHost reports whether host is this machine.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
