package wecom

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// sendAnswer is message/send's answer, with the fields the adapter reads.
type sendAnswer struct {
	MsgID       string `json:"msgid"`
	InvalidUser string `json:"invaliduser"`
}

// Send sends m to the member chat.ID as a text message, naming the files
// it cannot attach. Text longer than MaxText bytes is refused rather than
// sent, since WeCom would cut it (the gateway splits replies to fit).
func (a *App) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	text := withFileNames(m)
	if strings.TrimSpace(text) == "" {
		return gateway.MessageRef{Chat: chat}, nil
	}
	if n := len(text); n > MaxText {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("the text is %d bytes; WeCom delivers %d whole", n, MaxText)}
	}
	body := map[string]any{
		"touser":  chat.ID,
		"msgtype": "text",
		"agentid": a.agentID,
		"text":    map[string]string{"content": text},
		"safe":    0,
	}
	var out sendAnswer
	if err := a.post(ctx, "/cgi-bin/message/send", body, &out); err != nil {
		return gateway.MessageRef{}, a.classify(err, chat.ID)
	}
	a.limits.clear(chat.ID)
	if out.InvalidUser != "" {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("WeCom did not deliver to %s: not a member the app can reach (check the app's visible range)", out.InvalidUser)}
	}
	return gateway.MessageRef{Chat: chat, ID: out.MsgID}, nil
}

// Edit returns gateway.ErrCannotEdit: an app's messages cannot be edited.
func (a *App) Edit(context.Context, gateway.MessageRef, gateway.Outgoing) error {
	return gateway.ErrCannotEdit
}

// Answer does nothing: an app's messages carry no buttons here.
func (a *App) Answer(context.Context, gateway.Event, string) error { return nil }

// Typing does nothing: WeCom shows no typing indicator for apps.
func (a *App) Typing(context.Context, gateway.Chat) error { return nil }

// The errcodes the adapter tells apart.
const (
	codeBusy         = -1    // system busy: try again
	codeFreqLimit    = 45009 // API calls over the frequency limit
	codeMinuteLimit  = 45011 // API calls over the per-minute limit
	codeConcurrency  = 45033 // too many calls at once
	codeTooManyMsgs  = 45047 // too many messages to the member
	codeInvalidCred  = 40001 // the secret is wrong
	codeNotTrustedIP = 60020 // the caller's IP is not a trusted IP
)

// rateLimitStep is the first wait after a rate limit; it doubles while
// WeCom keeps refusing, up to rateLimitMax, since WeCom's answer says
// nothing about how long (its limits are per minute and per hour).
const (
	rateLimitStep = 2 * time.Second
	rateLimitMax  = time.Minute
)

// classify turns a failed call into a *gateway.SendError by errcode and
// status, never by errmsg.
func (a *App) classify(err error, chatID string) error {
	return classify(err, chatID, &a.limits, a.log)
}

// limits counts each chat's rate-limit answers in a row, to lengthen the
// wait while WeCom keeps refusing.
type limits struct {
	mu sync.Mutex
	n  map[string]int
}

// next returns how long chat should wait after one more rate limit.
func (l *limits) next(chat string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	n := l.n[chat]
	l.n[chat] = n + 1
	if n >= 6 {
		return rateLimitMax
	}
	return min(rateLimitStep<<n, rateLimitMax)
}

// clear starts chat's waits afresh after a send went through.
func (l *limits) clear(chat string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.n, chat)
}

// classify is App's and Bot's classify: errcodes in WeCom's answers mean
// the same for both.
func classify(err error, chatID string, lim *limits, log *slog.Logger) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	switch {
	case ae.Code == codeFreqLimit || ae.Code == codeMinuteLimit || ae.Code == codeConcurrency || ae.Code == codeTooManyMsgs || ae.Status == 429:
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: lim.next(chatID), Message: ae.Error(), Err: err}
	case ae.Code == codeBusy || ae.Status >= 500 || ae.Code == codeInvalidToken || ae.Code == codeExpiredToken:
		return &gateway.SendError{Kind: gateway.Temporary, Message: ae.Error(), Err: err}
	case ae.Code == codeNotTrustedIP:
		log.Error("wecom: WeCom refuses calls from this machine's IP (errcode 60020); add its public egress IP under the app's 企业可信IP (Trusted IP) in the WeCom admin console",
			"errcode", ae.Code)
	case ae.Code == codeInvalidCred:
		log.Error("wecom: WeCom refused the credentials (errcode 40001); check gateway.wecom's corp_id and secret", "errcode", ae.Code)
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: ae.Error(), Err: err}
}

// eventID is the id the gateway dedupes a callback on: MsgId for a
// message, the sender and time for an event (which has none).
func eventID(m appMessage) string {
	if m.MsgID != "" {
		return "msg:" + m.MsgID
	}
	return "ev:" + m.FromUserName + ":" + strconv.FormatInt(m.CreateTime, 10)
}
