package notify

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// TelegramLimit is the most characters (UTF-16 code units) of one
// Telegram message; longer results go out as a numbered series.
const TelegramLimit = 4096

// telegramTarget sends plain text to a Telegram chat through the Bot API.
// Markdown is not parsed: a stray underscore in a result would make
// Telegram refuse the whole message.
type telegramTarget struct {
	chatID string
	base   string
	token  string
	client *http.Client
}

func newTelegram(rest string, cfg Config) (*telegramTarget, error) {
	if cfg.TelegramToken == "" {
		return nil, fmt.Errorf("no Telegram bot token is configured")
	}
	if _, err := strconv.ParseInt(rest, 10, 64); err != nil && !strings.HasPrefix(rest, "@") {
		return nil, fmt.Errorf("a chat_id is a number (e.g. -1001234567890) or @channelname")
	}
	return &telegramTarget{
		chatID: rest,
		base:   strings.TrimSuffix(orDefault(cfg.TelegramURL, DefaultTelegramURL), "/"),
		token:  cfg.TelegramToken,
		client: cfg.client(),
	}, nil
}

func (t *telegramTarget) String() string    { return "telegram:" + t.chatID }
func (t *telegramTarget) secrets() []string { return []string{t.token} }

func (t *telegramTarget) Split(msg Message) []Part {
	return series(msg, compose(msg, plainTitle), TelegramLimit, utf16Unit)
}

// Send calls sendMessage. A 429 carries parameters.retry_after, the
// seconds to wait; other refusals (chat not found, bot blocked, bad
// token) are permanent.
func (t *telegramTarget) Send(ctx context.Context, p Part) error {
	endpoint := t.base + "/bot" + t.token + "/sendMessage"
	r, err := postJSON(ctx, t.client, "telegram", endpoint, map[string]string{"chat_id": t.chatID, "text": p.Text})
	if err != nil {
		return err
	}
	var ans struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if decode("telegram", r, &ans) != nil {
		return checkStatusOr("telegram", r)
	}
	if ans.OK {
		return nil
	}
	e := &SendError{Msg: fmt.Sprintf("telegram: error %d: %s", ans.ErrorCode, ans.Description)}
	switch {
	case ans.ErrorCode == http.StatusTooManyRequests || r.status == http.StatusTooManyRequests:
		e.Transient = true
		e.RetryAfter = time.Duration(ans.Parameters.RetryAfter) * time.Second
		if e.RetryAfter == 0 {
			e.RetryAfter = retryAfter(r.header)
		}
	case r.status >= 500:
		e.Transient = true
	}
	return e
}

// checkStatusOr classifies an answer that was not the platform's JSON: by
// its status, or as transient when even the status claims success.
func checkStatusOr(what string, r *response) error {
	if err := checkStatus(what, r); err != nil {
		return err
	}
	return Transient("%s: unexpected answer (HTTP %d)%s", what, r.status, snippet(r.body))
}
