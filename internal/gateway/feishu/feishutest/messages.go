package feishutest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Message is a message in a chat: one a user wrote (From set) or one the
// bot sent.
type Message struct {
	ID     string
	ChatID string
	From   User // zero for the bot's
	// MsgType is text, post or interactive; Content the JSON string as
	// sent (or as last patched).
	MsgType string
	Content string
	// Text is a text message's text, or a card's markdown elements
	// joined; Buttons are a card's buttons.
	Text    string
	Buttons [][]Button
	// ReplyTo is the message this one replies to; InThread is set when
	// it was sent with reply_in_thread.
	ReplyTo  string
	InThread bool
	// Edits counts the patches made to it.
	Edits int
}

// Button is a card's button: its label and the data of its value.
type Button struct {
	Text string
	Data string
	// Value is the button's value object as sent.
	Value json.RawMessage
}

// Feishu's limits on what a bot sends.
const (
	// MaxCardBytes is the most bytes a card's content may hold.
	MaxCardBytes = 30 << 10
	// MaxTextBytes is the most bytes a text message's content may hold.
	MaxTextBytes = 150 << 10
)

// The codes this server answers with.
const (
	CodeInvalidParam   = 230001
	CodeTooLong        = 230025
	CodeRateLimited    = 230020
	CodeAppRateLimited = 99991400
	CodeCardInvalid    = 230099
	CodeNotFound       = 230011
	CodeNotEditable    = 230071
)

type sendBody struct {
	ReceiveID     string `json:"receive_id"`
	MsgType       string `json:"msg_type"`
	Content       string `json:"content"`
	UUID          string `json:"uuid"`
	ReplyInThread bool   `json:"reply_in_thread"`
}

func readBody(r *http.Request, v any) *apiError {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(raw, v) != nil {
		return &apiError{status: http.StatusBadRequest, code: 9499, msg: "Bad Request: the body is not JSON"}
	}
	return nil
}

// create answers POST /open-apis/im/v1/messages.
func (s *Server) create(r *http.Request) (any, *apiError) {
	if t := r.URL.Query().Get("receive_id_type"); t != "chat_id" {
		return nil, invalid("receive_id_type %q: this server takes chat_id", t)
	}
	var b sendBody
	if e := readBody(r, &b); e != nil {
		return nil, e
	}
	if b.ReceiveID == "" {
		return nil, invalid("receive_id is empty")
	}
	return s.add(b, b.ReceiveID, "")
}

// reply answers POST /open-apis/im/v1/messages/{id}/reply.
func (s *Server) reply(r *http.Request, id string) (any, *apiError) {
	var b sendBody
	if e := readBody(r, &b); e != nil {
		return nil, e
	}
	s.mu.Lock()
	to := s.messages[id]
	s.mu.Unlock()
	if to == nil {
		return nil, &apiError{status: http.StatusBadRequest, code: CodeNotFound, msg: "message not found: " + id}
	}
	return s.add(b, to.ChatID, id)
}

// add checks and keeps a message the bot sends to chat.
func (s *Server) add(b sendBody, chat, replyTo string) (any, *apiError) {
	text, buttons, e := parseContent(b.MsgType, b.Content)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.uuids[b.UUID]; ok && b.UUID != "" {
		m := s.messages[id]
		return map[string]any{"message_id": m.ID, "chat_id": m.ChatID, "msg_type": m.MsgType}, nil
	}
	if e := s.spendLocked(chat); e != nil {
		return nil, e
	}
	s.nextMsg++
	m := &Message{ID: fmt.Sprintf("om_bot%d", s.nextMsg), ChatID: chat, MsgType: b.MsgType, Content: b.Content,
		Text: text, Buttons: buttons, ReplyTo: replyTo, InThread: b.ReplyInThread}
	s.messages[m.ID], s.order = m, append(s.order, m.ID)
	if b.UUID != "" {
		s.uuids[b.UUID] = m.ID
	}
	s.changedLocked()
	return map[string]any{"message_id": m.ID, "chat_id": chat, "msg_type": b.MsgType}, nil
}

// patch answers PATCH /open-apis/im/v1/messages/{id}: a card the bot
// sent, replaced by another card.
func (s *Server) patch(r *http.Request, id string) (any, *apiError) {
	var b struct {
		Content string `json:"content"`
	}
	if e := readBody(r, &b); e != nil {
		return nil, e
	}
	text, buttons, e := parseContent("interactive", b.Content)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[id]
	switch {
	case m == nil:
		return nil, &apiError{status: http.StatusBadRequest, code: CodeNotFound, msg: "message not found: " + id}
	case m.From != (User{}) || m.MsgType != "interactive":
		return nil, &apiError{status: http.StatusBadRequest, code: CodeNotEditable, msg: "only the bot's own cards can be patched"}
	}
	if e := s.spendLocked(m.ChatID); e != nil {
		return nil, e
	}
	m.Content, m.Text, m.Buttons = b.Content, text, buttons
	m.Edits++
	s.changedLocked()
	return map[string]any{}, nil
}

// parseContent checks a message's content as Feishu does, by its type,
// and returns its text and buttons.
func parseContent(msgType, content string) (string, [][]Button, *apiError) {
	switch msgType {
	case "text":
		if len(content) > MaxTextBytes {
			return "", nil, &apiError{status: http.StatusBadRequest, code: CodeTooLong, msg: fmt.Sprintf("The message is too long: %d bytes, over %d", len(content), MaxTextBytes)}
		}
		var c struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal([]byte(content), &c) != nil || c.Text == nil {
			return "", nil, invalid("content is not a JSON string of {\"text\": ...}")
		}
		return *c.Text, nil, nil
	case "interactive":
		if len(content) > MaxCardBytes {
			return "", nil, &apiError{status: http.StatusBadRequest, code: CodeTooLong, msg: fmt.Sprintf("The card is too long: %d bytes, over %d", len(content), MaxCardBytes)}
		}
		return parseCard(content)
	}
	return "", nil, invalid("msg_type %q: this server takes text and interactive", msgType)
}

// parseCard reads a card: its markdown elements' text and its buttons.
// A card that is to be patched must say update_multi, or the patch would
// show only to some: the server requires it of every card.
func parseCard(content string) (string, [][]Button, *apiError) {
	var c struct {
		Config *struct {
			UpdateMulti bool `json:"update_multi"`
		} `json:"config"`
		Elements []struct {
			Tag     string `json:"tag"`
			Content string `json:"content"`
			Actions []struct {
				Tag  string `json:"tag"`
				Text struct {
					Content string `json:"content"`
				} `json:"text"`
				Value json.RawMessage `json:"value"`
			} `json:"actions"`
		} `json:"elements"`
	}
	if json.Unmarshal([]byte(content), &c) != nil || len(c.Elements) == 0 {
		return "", nil, &apiError{status: http.StatusBadRequest, code: CodeCardInvalid, msg: "Failed to create card content: not a card with elements"}
	}
	if c.Config == nil || !c.Config.UpdateMulti {
		return "", nil, &apiError{status: http.StatusBadRequest, code: CodeCardInvalid, msg: "Failed to create card content: config.update_multi is not set"}
	}
	var texts []string
	var rows [][]Button
	for _, el := range c.Elements {
		switch el.Tag {
		case "markdown":
			texts = append(texts, unescape(el.Content))
		case "action":
			var row []Button
			for _, a := range el.Actions {
				var v struct {
					D string `json:"d"`
				}
				_ = json.Unmarshal(a.Value, &v)
				row = append(row, Button{Text: a.Text.Content, Data: v.D, Value: a.Value})
			}
			rows = append(rows, row)
		default:
			return "", nil, &apiError{status: http.StatusBadRequest, code: CodeCardInvalid, msg: "Failed to create card content: unknown tag " + el.Tag}
		}
	}
	return strings.Join(texts, "\n"), rows, nil
}

// unescape shows a markdown element's entities as the card shows them.
func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

func invalid(format string, a ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, code: CodeInvalidParam, msg: "invalid param: " + fmt.Sprintf(format, a...)}
}

// Sent returns the bot's messages in chat, in order.
func (s *Server) Sent(chat string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, id := range s.order {
		if m := s.messages[id]; m.ChatID == chat && m.From == (User{}) {
			c := *m
			c.Buttons = append([][]Button(nil), m.Buttons...)
			out = append(out, c)
		}
	}
	return out
}
