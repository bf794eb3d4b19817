package slack

import (
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// callback is the Events API's body, over HTTP and in Socket Mode's
// events_api envelopes alike.
type callback struct {
	Type      string          `json:"type"`
	Challenge string          `json:"challenge"`
	EventID   string          `json:"event_id"`
	Event     json.RawMessage `json:"event"`
}

// msgEvent is a message or app_mention event.
type msgEvent struct {
	Type         string            `json:"type"`
	Subtype      string            `json:"subtype"`
	User         string            `json:"user"`
	BotID        string            `json:"bot_id"`
	Text         string            `json:"text"`
	TS           string            `json:"ts"`
	ThreadTS     string            `json:"thread_ts"`
	ParentUserID string            `json:"parent_user_id"`
	Channel      string            `json:"channel"`
	ChannelType  string            `json:"channel_type"`
	Files        []json.RawMessage `json:"files"`
}

// interaction is a block_actions payload: a press of a button.
type interaction struct {
	Type      string `json:"type"`
	TriggerID string `json:"trigger_id"`
	User      struct {
		ID       string `json:"id"`
		Username string `json:"username"`
	} `json:"user"`
	Channel struct {
		ID string `json:"id"`
	} `json:"channel"`
	Container struct {
		ChannelID string `json:"channel_id"`
		MessageTS string `json:"message_ts"`
		ThreadTS  string `json:"thread_ts"`
	} `json:"container"`
	Message struct {
		TS       string `json:"ts"`
		ThreadTS string `json:"thread_ts"`
	} `json:"message"`
	Actions []struct {
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
		ActionTS string `json:"action_ts"`
	} `json:"actions"`
}

// messageEvent maps a callback's event to a message Event; false for
// what is not someone writing to hermes: other event types, the posts of
// bots (hermes's own, and others', which could answer each other without
// end), edits, deletions, joins and the like.
//
// Its ID is the channel and the message's ts, not the event_id, because
// Slack sends two events for one mention (app_mention and message) with
// two event_ids: the gateway answers the message once.
func (a *Adapter) messageEvent(raw json.RawMessage) (gateway.Event, bool) {
	var m msgEvent
	if err := json.Unmarshal(raw, &m); err != nil || (m.Type != "message" && m.Type != "app_mention") {
		return gateway.Event{}, false
	}
	botUser := a.bot()
	if m.User == "" || m.Channel == "" || m.TS == "" || systemSubtype(m.Subtype) ||
		m.BotID != "" || (botUser != "" && m.User == botUser) {
		return gateway.Event{}, false
	}
	media := a.media(m.Files)
	if strings.TrimSpace(m.Text) == "" && len(media) == 0 {
		return gateway.Event{}, false
	}
	chat := gateway.Chat{ID: m.Channel, Type: gateway.Group, Thread: m.ThreadTS}
	if m.ChannelType == "im" || (m.ChannelType == "" && strings.HasPrefix(m.Channel, "D")) {
		chat.Type = gateway.DM
	} else if chat.Thread == "" {
		// In a channel hermes answers in a thread under the message,
		// and the thread is the conversation.
		chat.Thread = m.TS
	}
	addressed := chat.Type == gateway.DM || m.Type == "app_mention" ||
		(botUser != "" && (strings.Contains(m.Text, "<@"+botUser+">") || strings.Contains(m.Text, "<@"+botUser+"|") ||
			m.ParentUserID == botUser)) ||
		(m.ThreadTS != "" && a.answered.has(m.Channel, m.ThreadTS))
	return gateway.Event{
		ID:        "msg:" + m.Channel + ":" + m.TS,
		Kind:      gateway.KindMessage,
		Received:  a.clock.Now(),
		Chat:      chat,
		User:      gateway.User{ID: m.User, Name: m.User},
		Text:      unescape(m.Text),
		Addressed: addressed,
		MessageID: m.TS,
		Media:     media,
	}, true
}

// systemSubtype reports the subtypes that are not someone writing: edits
// and deletions (an edit is not a new request), joins and leaves, and
// changes to the channel. Others, such as thread_broadcast (a reply also
// sent to the channel) and file_share, are messages.
func systemSubtype(s string) bool {
	switch s {
	case "message_changed", "message_deleted", "message_replied", "bot_message", "bot_add", "bot_remove",
		"pinned_item", "unpinned_item", "reminder_add", "ekm_access_denied", "tombstone":
		return true
	}
	for _, suffix := range []string{"_join", "_leave", "_topic", "_purpose", "_name", "_archive", "_unarchive", "_convert_to_private", "_convert_to_public"} {
		if strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}

// unescape undoes Slack's escaping of the text people write, so the model
// reads "a < b" as it was typed.
func unescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	s = strings.ReplaceAll(s, "&lt;", "<")
	s = strings.ReplaceAll(s, "&gt;", ">")
	return strings.ReplaceAll(s, "&amp;", "&")
}

// buttonEvent maps a block_actions payload to a button Event; false for
// other interactions and presses that carry no value.
func (a *Adapter) buttonEvent(raw []byte) (gateway.Event, bool) {
	var in interaction
	if err := json.Unmarshal(raw, &in); err != nil || in.Type != "block_actions" || len(in.Actions) == 0 || in.User.ID == "" {
		return gateway.Event{}, false
	}
	act := in.Actions[0]
	channel := in.Channel.ID
	if channel == "" {
		channel = in.Container.ChannelID
	}
	ts, thread := in.Message.TS, in.Message.ThreadTS
	if ts == "" {
		ts = in.Container.MessageTS
	}
	if thread == "" {
		thread = in.Container.ThreadTS
	}
	if channel == "" || ts == "" || act.Value == "" {
		return gateway.Event{}, false
	}
	chat := gateway.Chat{ID: channel, Type: gateway.Group, Thread: thread}
	if strings.HasPrefix(channel, "D") {
		chat.Type = gateway.DM
	}
	id := in.TriggerID
	if id == "" {
		id = in.User.ID + ":" + act.ActionTS
	}
	name := in.User.Username
	if name == "" {
		name = in.User.ID
	}
	return gateway.Event{
		ID:        "act:" + id,
		Kind:      gateway.KindButton,
		Received:  a.clock.Now(),
		Chat:      chat,
		User:      gateway.User{ID: in.User.ID, Name: name},
		Addressed: true,
		Data:      act.Value,
		Ref:       gateway.MessageRef{Chat: chat, ID: ts},
	}, true
}
