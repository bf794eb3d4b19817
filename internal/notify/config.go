package notify

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// The public endpoints of the platforms; Config fields override them so
// tests (and private deployments) can point elsewhere.
const (
	DefaultWeComURL    = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send"
	DefaultFeishuURL   = "https://open.feishu.cn/open-apis/bot/v2/hook/"
	DefaultDingTalkURL = "https://oapi.dingtalk.com/robot/send"
	DefaultTelegramURL = "https://api.telegram.org"
)

// defaultBackoff is the wait before the second, third and fourth try of
// a target: short enough for a scheduled job to finish, long enough to
// ride out a brief outage or a per-minute rate limit.
func defaultBackoff() []time.Duration {
	return []time.Duration{1 * time.Second, 4 * time.Second, 15 * time.Second}
}

// MaxRetryAfter caps the wait a platform may ask for: a longer one (an
// hour-long ban) would stall the job, so the chain moves on instead.
const MaxRetryAfter = 2 * time.Minute

// Config holds what targets need beyond their spec string: credentials
// kept out of job files, endpoints and the seams tests replace.
type Config struct {
	// Home is $HERMES_HOME; the local target writes under Home/deliveries.
	Home string

	// Endpoints used when a spec gives a bare key or token; empty means
	// the public default.
	WeComURL    string
	FeishuURL   string
	DingTalkURL string
	TelegramURL string

	// TelegramToken is the bot token for telegram:<chat_id> targets.
	TelegramToken string

	// SMTP is the mail server for email:<address> targets.
	SMTP SMTP

	// Backoff lists the waits between tries of one target; its length is
	// the number of retries. Nil means 1 s, 4 s, 15 s; an empty non-nil
	// slice means no retries.
	Backoff []time.Duration

	// HTTPClient makes the platform requests; nil means a client with a
	// 30 s timeout.
	HTTPClient *http.Client
	// Clock stamps local files and signatures and times the waits
	// between tries; nil means the real clock. Tests pass a fake.
	Clock clock.Clock
	// Logger receives one line per try; nil means slog.Default().
	Logger *slog.Logger
	// OnAttempt, when set, is told each try as it ends, before the wait
	// for the next: hermes deliver test shows them as they happen.
	OnAttempt func(Attempt)
	// Delivered, when set, hears every delivery once it is over, taken or
	// not (the on_delivery hooks).
	Delivered func(ctx context.Context, msg Message, rep Report)
}

// SMTP describes the mail server. STARTTLS is used whenever the server
// offers it; credentials are only sent over TLS or to localhost (the
// rule of net/smtp's PLAIN auth).
type SMTP struct {
	Host     string
	Port     int // 587 when zero; 465 means TLS from the first byte
	Username string
	Password string
	From     string
	// Timeout bounds one whole SMTP conversation; zero means 30 s.
	Timeout time.Duration
}

func (c *Config) backoff() []time.Duration {
	if c.Backoff == nil {
		return defaultBackoff()
	}
	return c.Backoff
}

func (c *Config) client() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// clock is the Clock to use: the configured one, else the real clock.
func (c *Config) clock() clock.Clock { return clock.OrReal(c.Clock) }

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
