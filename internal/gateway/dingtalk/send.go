package dingtalk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Send sends m's text to chat as DingTalk Markdown: through the chat's
// sessionWebhook while it lasts, else the robot API (batchSend to a
// person, groupMessages/send to a group). Files cannot go through a
// robot's Markdown, so their names are sent instead, saying so.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	text := m.Text
	if len(m.Files) > 0 {
		names := make([]string, len(m.Files))
		for i, f := range m.Files {
			names[i] = filepath.Base(f)
		}
		text = strings.TrimSpace(text + "\n\n(Not attached, since a DingTalk robot sends text only: " + strings.Join(names, ", ") + ".)")
	}
	if strings.TrimSpace(text) == "" {
		return gateway.MessageRef{Chat: chat}, nil
	}
	if len(text) > MaxText {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("the message is %d bytes; DingTalk takes at most %d", len(text), MaxText)}
	}
	if wait := a.budget.take(a.clock.Now()); wait > 0 {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: wait,
			Message: fmt.Sprintf("the robot has sent its %d messages of the minute", PerMinute)}
	}
	id, err := a.send(ctx, chat, title(text), text)
	if err != nil {
		return gateway.MessageRef{}, a.classify(err)
	}
	a.budget.delivered()
	return gateway.MessageRef{Chat: chat, ID: id}, nil
}

// send posts one Markdown message and returns DingTalk's id for it, ""
// when the sessionWebhook gives none.
func (a *Adapter) send(ctx context.Context, chat gateway.Chat, title, text string) (string, error) {
	if hook, ok := a.routes.get(chat.ID, a.clock.Now()); ok {
		body := map[string]any{"msgtype": "markdown", "markdown": map[string]string{"title": title, "text": text}}
		err := a.post(ctx, "sessionWebhook", hook, false, body, nil)
		var ae *apiError
		if err == nil || !errors.As(err, &ae) || rateLimited(ae) {
			return "", err
		}
		// The session ended sooner than it said: the robot API can
		// still reach the chat.
		a.routes.forget(chat.ID)
		a.log.Info("dingtalk: the chat's sessionWebhook was refused; sending through the robot API", "error", err)
	}
	param, _ := json.Marshal(map[string]string{"title": title, "text": text})
	var out struct {
		ProcessQueryKey           string   `json:"processQueryKey"`
		InvalidStaffIDList        []string `json:"invalidStaffIdList"`
		FlowControlledStaffIDList []string `json:"flowControlledStaffIdList"`
	}
	var err error
	if chat.Type == gateway.Group {
		err = a.post(ctx, "robot/groupMessages/send", "/v1.0/robot/groupMessages/send", true, map[string]any{
			"robotCode": a.robot, "openConversationId": chat.ID, "msgKey": "sampleMarkdown", "msgParam": string(param)}, &out)
	} else {
		err = a.post(ctx, "robot/oToMessages/batchSend", "/v1.0/robot/oToMessages/batchSend", true, map[string]any{
			"robotCode": a.robot, "userIds": []string{chat.ID}, "msgKey": "sampleMarkdown", "msgParam": string(param)}, &out)
	}
	switch {
	case err != nil:
		return "", err
	case len(out.FlowControlledStaffIDList) > 0:
		return "", &apiError{Op: "robot/oToMessages/batchSend", Status: 200, Code: "flowControlled", Message: "the user was sent too many messages"}
	case len(out.InvalidStaffIDList) > 0:
		return "", &apiError{Op: "robot/oToMessages/batchSend", Status: 200, Code: "invalidStaffId", Message: fmt.Sprintf("user %q is not in the robot's organization", chat.ID)}
	}
	return out.ProcessQueryKey, nil
}

// maxTitle is how many characters of the reply the notification shows.
const maxTitle = 30

// title is a Markdown message's title, shown in notifications: its first
// line, without Markdown marks, cut at a rune.
func title(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(strings.TrimLeft(line, "#>*-_` "))
	if utf8.RuneCountInString(line) > maxTitle {
		r := []rune(line)
		line = string(r[:maxTitle]) + "…"
	}
	if line == "" {
		return "hermes"
	}
	return line
}
