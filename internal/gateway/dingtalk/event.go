package dingtalk

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Message is a robot message as DingTalk delivers it, in a Stream
// callback's data or an HTTP callback's body.
type Message struct {
	MsgID            string `json:"msgId"`
	MsgType          string `json:"msgtype"`
	Text             Text   `json:"text"`
	ConversationID   string `json:"conversationId"`
	ConversationType string `json:"conversationType"`
	// ConversationTitle is a group's name.
	ConversationTitle string `json:"conversationTitle,omitempty"`
	SenderID          string `json:"senderId"`
	SenderStaffID     string `json:"senderStaffId,omitempty"`
	SenderNick        string `json:"senderNick,omitempty"`
	ChatbotUserID     string `json:"chatbotUserId,omitempty"`
	IsInAtList        bool   `json:"isInAtList,omitempty"`
	// CreateAt and SessionWebhookExpiredTime are milliseconds since 1970.
	CreateAt                  int64  `json:"createAt,omitempty"`
	SessionWebhook            string `json:"sessionWebhook,omitempty"`
	SessionWebhookExpiredTime int64  `json:"sessionWebhookExpiredTime,omitempty"`
	RobotCode                 string `json:"robotCode,omitempty"`
}

// Text is a text message's content.
type Text struct {
	Content string `json:"content"`
}

// The conversation types.
const (
	conversationSingle = "1"
	conversationGroup  = "2"
)

// event turns a message into a gateway Event, and keeps its
// sessionWebhook for the replies. ok is false for what hermes does not
// answer: a message without an id, a sender or text.
func (a *Adapter) event(raw []byte) (gateway.Event, bool) {
	var m Message
	if err := json.Unmarshal(raw, &m); err != nil {
		a.log.Warn("dingtalk: a callback is not a robot message", "error", err)
		return gateway.Event{}, false
	}
	user := m.SenderStaffID
	if user == "" {
		user = m.SenderID
	}
	text := strings.TrimSpace(m.Text.Content)
	if m.MsgID == "" || user == "" || m.ConversationID == "" {
		a.log.Warn("dingtalk: a message without msgId, sender or conversation was dropped", "msg_id", m.MsgID)
		return gateway.Event{}, false
	}
	if m.MsgType != "text" || text == "" {
		a.log.Info("dingtalk: a message that is not text was not answered", "msg_id", m.MsgID, "msgtype", m.MsgType)
		return gateway.Event{}, false
	}
	ev := gateway.Event{
		ID:        m.MsgID,
		Kind:      gateway.KindMessage,
		User:      gateway.User{ID: user, Name: m.SenderNick},
		Received:  a.clock.Now(),
		Text:      text,
		MessageID: m.MsgID,
	}
	switch m.ConversationType {
	case conversationGroup:
		// A group's robot is sent only the messages that @ it; the flag
		// says so, and anything else is not for hermes.
		ev.Chat = gateway.Chat{ID: m.ConversationID, Type: gateway.Group}
		ev.Addressed = m.IsInAtList
	default:
		// A direct chat is the person: the robot API sends to them by
		// their user id.
		ev.Chat = gateway.Chat{ID: user, Type: gateway.DM}
		ev.Addressed = true
	}
	if m.SessionWebhook != "" && m.SessionWebhookExpiredTime > 0 {
		if a.routes.trusted(m.SessionWebhook) {
			a.routes.set(ev.Chat.ID, route{url: m.SessionWebhook, expires: time.UnixMilli(m.SessionWebhookExpiredTime)}, a.clock.Now())
		} else {
			a.log.Warn("dingtalk: a message's sessionWebhook is not a DingTalk address; the robot API answers instead", "msg_id", m.MsgID)
		}
	}
	return ev, true
}
