package wecom

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// botMessage is aibot_msg_callback's body, with the fields hermes reads.
type botMessage struct {
	MsgID    string `json:"msgid"`
	AIBotID  string `json:"aibotid"`
	ChatID   string `json:"chatid"`
	ChatType string `json:"chattype"`
	From     struct {
		UserID string `json:"userid"`
	} `json:"from"`
	MsgType string `json:"msgtype"`
	Text    struct {
		Content string `json:"content"`
	} `json:"text"`
	Mixed struct {
		Items []struct {
			MsgType string `json:"msgtype"`
			Text    struct {
				Content string `json:"content"`
			} `json:"text"`
		} `json:"msg_item"`
	} `json:"mixed"`
}

// callback hands one pushed message to deliver.
func (b *Bot) callback(ctx context.Context, f frame, deliver func(context.Context, gateway.Event) error) {
	if f.Cmd != "aibot_msg_callback" {
		b.log.Debug("wecom bot: a frame skipped", "cmd", f.Cmd)
		return
	}
	var m botMessage
	if err := json.Unmarshal(f.Body, &m); err != nil || m.From.UserID == "" || f.Headers.ReqID == "" {
		b.log.Warn("wecom bot: a message callback without a sender or req_id was skipped")
		return
	}
	text := m.Text.Content
	if m.MsgType == "mixed" {
		var parts []string
		for _, it := range m.Mixed.Items {
			if it.MsgType == "text" {
				parts = append(parts, it.Text.Content)
			}
		}
		text = strings.Join(parts, "\n")
	}
	if text == "" {
		b.log.Debug("wecom bot: a message without text skipped", "msgtype", m.MsgType)
		return
	}
	chat := gateway.Chat{ID: m.From.UserID, Type: gateway.DM}
	// WeCom pushes a group message only when it @-mentions the bot, and
	// puts the mention first.
	addressed := true
	if m.ChatType == "group" {
		chat = gateway.Chat{ID: m.ChatID, Type: gateway.Group}
		addressed = strings.HasPrefix(strings.TrimSpace(text), "@")
	}
	b.remember(chat.ID, f.Headers.ReqID)
	ev := gateway.Event{ID: "msg:" + m.MsgID, Kind: gateway.KindMessage, Chat: chat,
		User: gateway.User{ID: m.From.UserID, Name: m.From.UserID}, Received: b.clock.Now(),
		Text: text, Addressed: addressed, MessageID: m.MsgID}
	if m.MsgID == "" {
		ev.ID = "req:" + f.Headers.ReqID
	}
	if err := deliver(ctx, ev); err != nil {
		b.log.Error("wecom bot: a message was not taken", "event", ev.ID, "err", err)
	}
}

// remember keeps req_id as chat's latest message, and forgets chats
// whose latest message is too old to answer, so memory stays flat.
func (b *Bot) remember(chat, reqID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if len(b.lastReq) >= 256 {
		for id, in := range b.lastReq {
			if now.Sub(in.at) > reqTTL {
				delete(b.lastReq, id)
				if st := b.streams[id]; st != nil && st.finished() {
					delete(b.streams, id)
				}
			}
		}
	}
	b.lastReq[chat] = inbound{reqID: reqID, at: now}
}
