package feishu

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// envelope is a post once opened: a url_verification or a schema 2.0
// event.
type envelope struct {
	Type      string `json:"type"`
	Challenge string `json:"challenge"`
	Token     string `json:"token"`
	Schema    string `json:"schema"`
	Header    struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
		Token     string `json:"token"`
		AppID     string `json:"app_id"`
	} `json:"header"`
	Event json.RawMessage `json:"event"`
}

// userID is how Feishu names a user; hermes goes by open_id.
type userID struct {
	OpenID  string `json:"open_id"`
	UnionID string `json:"union_id"`
	UserID  string `json:"user_id"`
}

// messageEvent is im.message.receive_v1.
type messageEvent struct {
	Sender struct {
		SenderID   userID `json:"sender_id"`
		SenderType string `json:"sender_type"`
	} `json:"sender"`
	Message struct {
		MessageID   string `json:"message_id"`
		RootID      string `json:"root_id"`
		ThreadID    string `json:"thread_id"`
		ChatID      string `json:"chat_id"`
		ChatType    string `json:"chat_type"`
		MessageType string `json:"message_type"`
		Content     string `json:"content"`
		Mentions    []struct {
			Key  string `json:"key"`
			ID   userID `json:"id"`
			Name string `json:"name"`
		} `json:"mentions"`
	} `json:"message"`
}

// cardEvent is card.action.trigger, a press of a card's button.
type cardEvent struct {
	Operator userID `json:"operator"`
	Action   struct {
		Value json.RawMessage `json:"value"`
		Tag   string          `json:"tag"`
	} `json:"action"`
	Context struct {
		MessageID string `json:"open_message_id"`
		ChatID    string `json:"open_chat_id"`
	} `json:"context"`
}

// dispatch hands a verified event to the gateway and answers the post.
func (a *Adapter) dispatch(w http.ResponseWriter, r *http.Request, env envelope) {
	status, answer := a.handle(r.Context(), env)
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	writeJSON(w, answer)
}

// handle hands a verified event to the gateway, and returns the status
// and the body of the answer: 200, or 503 when the gateway did not take
// the event (or is not receiving yet), so that Feishu sends it again.
func (a *Adapter) handle(ctx context.Context, env envelope) (int, any) {
	deliver := a.inlet.Take()
	if deliver == nil {
		return http.StatusServiceUnavailable, nil
	}
	var ev gateway.Event
	var ok bool
	switch env.Header.EventType {
	case "im.message.receive_v1":
		ev, ok = a.messageEvent(env)
	case "card.action.trigger":
		return a.press(ctx, env, deliver)
	}
	if !ok {
		return http.StatusOK, struct{}{} // taken, and nothing for the gateway
	}
	if err := deliver(ctx, ev); err != nil {
		a.log.Warn("feishu: an event was not taken; Feishu will send it again", "event_id", env.Header.EventID, "err", err)
		return http.StatusServiceUnavailable, nil
	}
	return http.StatusOK, struct{}{}
}

// messageEvent maps a received message to an Event; false for what
// carries nothing for the gateway (a bot's own message, an image).
func (a *Adapter) messageEvent(env envelope) (gateway.Event, bool) {
	var e messageEvent
	if json.Unmarshal(env.Event, &e) != nil || e.Sender.SenderType != "user" || e.Message.ChatID == "" || env.Header.EventID == "" {
		return gateway.Event{}, false
	}
	m := e.Message
	text, ok := messageText(m.MessageType, m.Content)
	if !ok {
		return gateway.Event{}, false
	}
	chat := gateway.Chat{ID: m.ChatID, Type: gateway.Group}
	if m.ChatType == "p2p" {
		chat.Type = gateway.DM
	}
	if m.ThreadID != "" && m.RootID != "" {
		chat.Thread = m.RootID
	}
	addressed := chat.Type == gateway.DM
	bot := a.botID()
	for _, mention := range m.Mentions {
		if bot != "" && mention.ID.OpenID == bot {
			addressed = true
		}
		if mention.Key != "" {
			text = strings.ReplaceAll(text, mention.Key, "@"+mention.Name)
		}
	}
	return gateway.Event{
		ID: env.Header.EventID, Kind: gateway.KindMessage, Received: a.clock.Now(),
		Chat:      chat,
		User:      gateway.User{ID: e.Sender.SenderID.OpenID, Name: e.Sender.SenderID.OpenID},
		Text:      text,
		Addressed: addressed,
		MessageID: m.MessageID,
	}, true
}

// messageText reads the text of a message's content, a JSON string: a
// text message's text, or the text of a rich-text (post) message's
// paragraphs.
func messageText(kind, content string) (string, bool) {
	switch kind {
	case "text":
		var c struct {
			Text string `json:"text"`
		}
		if json.Unmarshal([]byte(content), &c) != nil || strings.TrimSpace(c.Text) == "" {
			return "", false
		}
		return c.Text, true
	case "post":
		var c struct {
			Title   string `json:"title"`
			Content [][]struct {
				Tag    string `json:"tag"`
				Text   string `json:"text"`
				UserID string `json:"user_id"`
				Href   string `json:"href"`
			} `json:"content"`
		}
		if json.Unmarshal([]byte(content), &c) != nil {
			return "", false
		}
		var b strings.Builder
		if c.Title != "" {
			b.WriteString(c.Title + "\n")
		}
		for _, para := range c.Content {
			for _, el := range para {
				switch el.Tag {
				case "text", "a", "code_block", "md":
					b.WriteString(el.Text)
				case "at":
					b.WriteString(el.UserID)
				}
			}
			b.WriteString("\n")
		}
		text := strings.TrimSpace(b.String())
		return text, text != ""
	}
	return "", false
}
