package telegram

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Send sends m to chat as HTML, with its buttons, as a reply to
// m.ReplyTo (sent even when that message is gone), in the chat's topic,
// then m.Files as documents (photos as photos). The reference is the text
// message's, or the last file's when there is no text.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	chatID, err := parseID("chat id", chat.ID)
	if err != nil {
		return gateway.MessageRef{}, err
	}
	kb, err := keyboard(m.Buttons)
	if err != nil {
		return gateway.MessageRef{}, err
	}
	if strings.TrimSpace(m.Text) == "" && len(m.Files) == 0 {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent, Message: "the message has neither text nor files; give one"}
	}
	base := map[string]any{"chat_id": chatID}
	if chat.Thread != "" && chat.Thread != generalTopic {
		thread, err := parseID("thread id", chat.Thread)
		if err != nil {
			return gateway.MessageRef{}, err
		}
		base["message_thread_id"] = thread
	}
	if m.ReplyTo != "" {
		id, err := parseID("reply-to message id", m.ReplyTo)
		if err != nil {
			return gateway.MessageRef{}, err
		}
		base["reply_parameters"] = map[string]any{"message_id": id, "allow_sending_without_reply": true}
	}
	ref := gateway.MessageRef{Chat: chat}
	if strings.TrimSpace(m.Text) != "" {
		p := clone(base)
		p["text"], p["parse_mode"] = RenderHTML(m.Text), "HTML"
		if kb != nil {
			p["reply_markup"] = kb
		}
		var sent tgMessage
		if err := a.call(ctx, "sendMessage", p, &sent); err != nil {
			return ref, a.classify(err, chatID)
		}
		ref.ID = strconv.Itoa(sent.MessageID)
		delete(base, "reply_parameters") // the files follow the text
	}
	for _, path := range m.Files {
		id, err := a.sendFile(ctx, base, path)
		if err != nil {
			return ref, err
		}
		if ref.ID == "" || strings.TrimSpace(m.Text) == "" {
			ref.ID = id
		}
	}
	return ref, nil
}

// generalTopic is the General topic's id, which Telegram wants omitted.
const generalTopic = "1"

// maxPhoto is the largest file sendPhoto takes; a larger picture goes as
// a document.
const maxPhoto = 10 << 20

// isPhoto reports whether a file is sent with sendPhoto, so the chat
// shows it as a picture.
func isPhoto(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jpg", ".jpeg", ".png", ".webp":
		fi, err := os.Stat(path)
		return err == nil && fi.Size() <= maxPhoto
	}
	return false
}

func (a *Adapter) sendFile(ctx context.Context, base map[string]any, path string) (string, error) {
	method, field := "sendDocument", "document"
	if isPhoto(path) {
		method, field = "sendPhoto", "photo"
	}
	params := map[string]string{}
	for k, v := range base {
		switch v := v.(type) {
		case int64:
			params[k] = strconv.FormatInt(v, 10)
		default:
			params[k] = fmt.Sprint(v)
		}
	}
	var sent tgMessage
	if err := a.upload(ctx, method, field, path, params, &sent); err != nil {
		chatID, _ := base["chat_id"].(int64)
		return "", a.classify(err, chatID)
	}
	return strconv.Itoa(sent.MessageID), nil
}

// Edit replaces the text (and buttons) of a message sent earlier; an edit
// that changes nothing succeeds, and an edit without buttons removes them.
func (a *Adapter) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	chatID, err := parseID("chat id", ref.Chat.ID)
	if err != nil {
		return err
	}
	msgID, err := parseID("message id", ref.ID)
	if err != nil {
		return err
	}
	kb, err := keyboard(m.Buttons)
	if err != nil {
		return err
	}
	if strings.TrimSpace(m.Text) == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "an edit needs text; Telegram messages cannot be emptied"}
	}
	p := map[string]any{"chat_id": chatID, "message_id": msgID, "text": RenderHTML(m.Text), "parse_mode": "HTML"}
	if kb != nil {
		p["reply_markup"] = kb
	}
	if err := a.call(ctx, "editMessageText", p, nil); err != nil {
		return a.classify(err, chatID)
	}
	return nil
}

// Answer answers a button press, which stops the spinner on the user's
// button; text over Telegram's 200 characters is cut.
func (a *Adapter) Answer(ctx context.Context, ev gateway.Event, text string) error {
	if ev.Raw == "" {
		return fmt.Errorf("telegram: the event %q is not a button press (it has no callback_query id)", ev.ID)
	}
	if utf8.RuneCountInString(text) > 200 {
		text = string([]rune(text)[:199]) + "…"
	}
	return a.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": ev.Raw, "text": text}, nil)
}

// Typing shows "typing…" in the chat (and topic) for about five seconds.
func (a *Adapter) Typing(ctx context.Context, chat gateway.Chat) error {
	chatID, err := parseID("chat id", chat.ID)
	if err != nil {
		return err
	}
	p := map[string]any{"chat_id": chatID, "action": "typing"}
	if chat.Thread != "" && chat.Thread != generalTopic {
		thread, err := parseID("thread id", chat.Thread)
		if err != nil {
			return err
		}
		p["message_thread_id"] = thread
	}
	return a.call(ctx, "sendChatAction", p, nil)
}

// parseID reads one of Telegram's integer ids; what is wrong is the
// caller's, so it is Permanent.
func parseID(what, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("telegram: %s %q is not an integer; Telegram ids are integers such as 123456789 or -1001234567890", what, s)}
	}
	return n, nil
}

// keyboard builds reply_markup from the buttons, refusing data Telegram
// would refuse (1 to 64 bytes) before anything is sent.
func keyboard(rows [][]gateway.Button) (map[string]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([][]map[string]string, 0, len(rows))
	for _, row := range rows {
		r := make([]map[string]string, 0, len(row))
		for _, btn := range row {
			if n := len(btn.Data); n < 1 || n > MaxButtonData {
				return nil, &gateway.SendError{Kind: gateway.Permanent,
					Message: fmt.Sprintf("telegram: button %q has %d bytes of data; Telegram takes 1 to %d bytes (keep a short id in the button and the state elsewhere)", btn.Text, n, MaxButtonData)}
			}
			if btn.Text == "" {
				return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("telegram: a button with data %q has no text; every button needs a label", btn.Data)}
			}
			r = append(r, map[string]string{"text": btn.Text, "callback_data": btn.Data})
		}
		out = append(out, r)
	}
	return map[string]any{"inline_keyboard": out}, nil
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
