package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// noMentions is allowed_mentions for everything hermes sends: no one is
// pinged, whatever the text says.
func noMentions() map[string]any { return map[string]any{"parse": []string{}} }

// Send posts m to the channel as a reply to m.ReplyTo (sent even when
// that message is gone), with its buttons and files. The text is rendered
// by Render and nothing it says can ping anyone.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	ref := gateway.MessageRef{Chat: chat}
	if err := checkID("channel id", chat.ID); err != nil {
		return ref, err
	}
	rows, err := components(m.Buttons)
	if err != nil {
		return ref, err
	}
	content := Render(m.Text)
	if strings.TrimSpace(content) == "" && len(m.Files) == 0 {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: "discord: the message has neither text nor files; give one"}
	}
	if n := utf8.RuneCountInString(content); n > MaxText {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("discord: the message is %d characters; Discord takes at most %d (split it)", n, MaxText)}
	}
	p := map[string]any{"allowed_mentions": noMentions()}
	if strings.TrimSpace(content) != "" {
		p["content"] = content
	}
	if rows != nil {
		p["components"] = rows
	}
	if m.ReplyTo != "" {
		if err := checkID("reply-to message id", m.ReplyTo); err != nil {
			return ref, err
		}
		p["message_reference"] = map[string]any{"message_id": m.ReplyTo, "fail_if_not_exists": false}
	}
	r := request{method: http.MethodPost, path: "/channels/" + chat.ID + "/messages", route: "POST /channels/" + chat.ID + "/messages", body: p}
	if len(m.Files) > 0 {
		if r.form, r.contentType, err = uploadForm(p, m.Files); err != nil {
			return ref, &gateway.SendError{Kind: gateway.Permanent, Message: err.Error(), Err: err}
		}
		r.body = nil
	}
	var sent struct {
		ID string `json:"id"`
	}
	if err := a.call(ctx, r, &sent); err != nil {
		return ref, classify(err)
	}
	ref.ID = sent.ID
	return ref, nil
}

// Edit replaces the content and buttons of a message hermes sent; an
// edit without buttons removes them.
func (a *Adapter) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	if err := checkID("channel id", ref.Chat.ID); err != nil {
		return err
	}
	if err := checkID("message id", ref.ID); err != nil {
		return err
	}
	rows, err := components(m.Buttons)
	if err != nil {
		return err
	}
	content := Render(m.Text)
	if strings.TrimSpace(content) == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "discord: an edit needs text; hermes does not empty its messages"}
	}
	if n := utf8.RuneCountInString(content); n > MaxText {
		return &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("discord: the edit is %d characters; Discord takes at most %d (split it)", n, MaxText)}
	}
	if rows == nil {
		rows = []map[string]any{}
	}
	p := map[string]any{"content": content, "components": rows, "allowed_mentions": noMentions()}
	path := "/channels/" + ref.Chat.ID + "/messages/" + ref.ID
	err = a.call(ctx, request{method: http.MethodPatch, path: path, route: "PATCH /channels/" + ref.Chat.ID + "/messages/{message}", body: p}, nil)
	return classify(err)
}

// Typing shows "hermes is typing…" in the channel for about ten seconds.
func (a *Adapter) Typing(ctx context.Context, chat gateway.Chat) error {
	if err := checkID("channel id", chat.ID); err != nil {
		return err
	}
	return a.call(ctx, request{method: http.MethodPost, path: "/channels/" + chat.ID + "/typing", route: "POST /channels/" + chat.ID + "/typing"}, nil)
}

// classify turns a failed request into a *gateway.SendError: a 429 is
// RateLimited with its retry_after, 5xx and no answer are Temporary, the
// rest Permanent. Discord has no formatting errors: content is text.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	switch {
	case ae.Status == http.StatusTooManyRequests:
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: ae.RetryAfter, Message: ae.Error(), Err: err}
	case ae.Status >= 500:
		return &gateway.SendError{Kind: gateway.Temporary, Message: ae.Error(), Err: err}
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: ae.Error(), Err: err}
}

// checkID refuses an id that is not a snowflake before it goes in a path.
func checkID(what, id string) error {
	if id == "" || len(id) > 20 || strings.Trim(id, "0123456789") != "" {
		return &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("discord: %s %q is not a Discord id; ids are decimal snowflakes such as 1045678901234567890", what, id)}
	}
	return nil
}

// components builds action rows of buttons, refusing what Discord would
// refuse (at most 5 rows of 5, a label of 1 to 80 characters, a custom_id
// of 1 to 100) before anything is sent.
func components(rows [][]gateway.Button) ([]map[string]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if len(rows) > 5 {
		return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("discord: %d rows of buttons; Discord takes at most 5", len(rows))}
	}
	out := make([]map[string]any, 0, len(rows))
	for _, row := range rows {
		if len(row) == 0 || len(row) > 5 {
			return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("discord: a row of %d buttons; Discord takes 1 to 5 per row", len(row))}
		}
		btns := make([]map[string]any, 0, len(row))
		for _, b := range row {
			if n := utf8.RuneCountInString(b.Data); n < 1 || n > MaxButtonData {
				return nil, &gateway.SendError{Kind: gateway.Permanent,
					Message: fmt.Sprintf("discord: button %q has a custom_id of %d characters; Discord takes 1 to %d (keep a short id in the button and the state elsewhere)", b.Text, n, MaxButtonData)}
			}
			if n := utf8.RuneCountInString(b.Text); n < 1 || n > maxButtonLabel {
				return nil, &gateway.SendError{Kind: gateway.Permanent,
					Message: fmt.Sprintf("discord: the button with custom_id %q has a label of %d characters; Discord takes 1 to %d", b.Data, n, maxButtonLabel)}
			}
			btns = append(btns, map[string]any{"type": 2, "style": 2, "label": b.Text, "custom_id": b.Data})
		}
		out = append(out, map[string]any{"type": 1, "components": btns})
	}
	return out, nil
}
