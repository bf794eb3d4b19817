package telegramtest

import (
	"net/http"
	"strings"
)

// MaxText is the longest text a message may carry after entity parsing,
// in UTF-16 code units.
const MaxText = 4096

// checkText parses raw by mode and applies the text limits; it returns
// the text as the chat shows it.
func checkText(raw, mode string, caption bool) (string, *apiError) {
	text := raw
	switch strings.ToLower(mode) {
	case "":
	case "html":
		t, err := parseHTML(raw)
		if err != nil {
			return "", badRequest("can't parse entities: %s", err)
		}
		text = t
	case "markdown", "markdownv2":
	default:
		return "", badRequest("unsupported parse_mode")
	}
	switch {
	case caption && UTF16Len(text) > 1024:
		return "", badRequest("message caption is too long")
	case caption:
	case strings.TrimSpace(text) == "":
		return "", badRequest("message text is empty")
	case UTF16Len(text) > MaxText:
		return "", badRequest("message is too long")
	}
	return text, nil
}

// content checks a message's text (or caption, by field) and its
// keyboard.
func content(p params, field string) (string, *Keyboard, *apiError) {
	text, aerr := checkText(p.str(field), p.str("parse_mode"), field == "caption")
	if aerr != nil {
		return "", nil, aerr
	}
	kb, aerr := keyboard(p)
	return text, kb, aerr
}

// keyboard reads reply_markup and checks every button's callback_data:
// 1 to 64 bytes.
func keyboard(p params) (*Keyboard, *apiError) {
	if !p.has("reply_markup") {
		return nil, nil
	}
	var k Keyboard
	if aerr := p.json("reply_markup", &k); aerr != nil {
		return nil, aerr
	}
	for _, row := range k.InlineKeyboard {
		for _, b := range row {
			if b.URL == "" && (len(b.CallbackData) < 1 || len(b.CallbackData) > 64) {
				return nil, badRequest("BUTTON_DATA_INVALID: callback data is too long or empty")
			}
			if b.Text == "" {
				return nil, badRequest("text buttons are unallowed in the inline keyboard")
			}
		}
	}
	return &k, nil
}

// target reads chat_id and message_thread_id and charges the chat's flood
// budget; the General topic (thread 1) is not found. s.mu is held.
func (s *Server) targetLocked(p params) (*chat, int, *apiError) {
	id, aerr := p.chatID()
	if aerr != nil {
		return nil, 0, aerr
	}
	thread, aerr := p.int("message_thread_id")
	if aerr != nil {
		return nil, 0, aerr
	}
	if thread == 1 {
		return nil, 0, badRequest("message thread not found")
	}
	if aerr := s.spendLocked(id); aerr != nil {
		return nil, 0, aerr
	}
	return s.chatLocked(id), int(thread), nil
}

// replyTo reads reply_parameters (or the older reply_to_message_id).
func replyTo(c *chat, p params) (*Message, *apiError) {
	var rp struct {
		MessageID                int  `json:"message_id"`
		AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
	}
	if aerr := p.json("reply_parameters", &rp); aerr != nil {
		return nil, aerr
	}
	if rp.MessageID == 0 {
		id, aerr := p.int("reply_to_message_id")
		if aerr != nil {
			return nil, aerr
		}
		rp.MessageID = int(id)
	}
	if rp.MessageID == 0 {
		return nil, nil
	}
	m := c.messages[rp.MessageID]
	if m == nil && !rp.AllowSendingWithoutReply {
		return nil, badRequest("message to be replied not found")
	}
	return m, nil
}

func (s *Server) sendMessage(_ *http.Request, p params) (any, *apiError) {
	text, kb, aerr := content(p, "text")
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, thread, aerr := s.targetLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	reply, aerr := replyTo(c, p)
	if aerr != nil {
		return nil, aerr
	}
	m := s.addLocked(c, &Message{
		From: &s.Bot, MessageThreadID: thread, IsTopicMessage: thread != 0,
		Text: text, ReplyToMessage: reply, ReplyMarkup: kb,
		Raw: p.str("text"), ParseMode: p.str("parse_mode"),
	})
	c.sent = append(c.sent, m.MessageID)
	return m, nil
}

// addLocked gives m the chat's next message id and keeps it. s.mu is held.
func (s *Server) addLocked(c *chat, m *Message) *Message {
	m.MessageID = c.nextID
	c.nextID++
	m.Chat = c.info
	m.Date = s.clock.Now().Unix()
	c.messages[m.MessageID] = m
	s.changedLocked()
	return m
}

// botMessageLocked finds the bot's message chat_id/message_id names,
// charging the chat's flood budget. s.mu is held.
func (s *Server) botMessageLocked(p params) (*Message, *apiError) {
	id, aerr := p.chatID()
	if aerr != nil {
		return nil, aerr
	}
	mid, aerr := p.int("message_id")
	if aerr != nil {
		return nil, aerr
	}
	if aerr := s.spendLocked(id); aerr != nil {
		return nil, aerr
	}
	c := s.chats[id]
	if c == nil {
		return nil, badRequest("chat not found")
	}
	m := c.messages[int(mid)]
	if m == nil {
		return nil, badRequest("message to edit not found")
	}
	if m.From == nil || m.From.ID != s.Bot.ID {
		return nil, badRequest("message can't be edited")
	}
	return m, nil
}

func (s *Server) editMessageText(_ *http.Request, p params) (any, *apiError) {
	text, kb, aerr := content(p, "text")
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, aerr := s.botMessageLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	if m.Raw == p.str("text") && m.ParseMode == p.str("parse_mode") && sameKeyboard(m.ReplyMarkup, kb) {
		return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	}
	m.Text, m.Raw, m.ParseMode, m.ReplyMarkup = text, p.str("text"), p.str("parse_mode"), kb
	m.Edits++
	m.EditDate = s.clock.Now().Unix()
	s.changedLocked()
	return m, nil
}

func (s *Server) editMessageReplyMarkup(_ *http.Request, p params) (any, *apiError) {
	kb, aerr := keyboard(p)
	if aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, aerr := s.botMessageLocked(p)
	if aerr != nil {
		return nil, aerr
	}
	if sameKeyboard(m.ReplyMarkup, kb) {
		return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	}
	m.ReplyMarkup = kb
	m.Edits++
	s.changedLocked()
	return m, nil
}

func sameKeyboard(a, b *Keyboard) bool {
	rows := func(k *Keyboard) [][]Button {
		if k == nil {
			return nil
		}
		return k.InlineKeyboard
	}
	ra, rb := rows(a), rows(b)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if len(ra[i]) != len(rb[i]) {
			return false
		}
		for j := range ra[i] {
			if ra[i][j] != rb[i][j] {
				return false
			}
		}
	}
	return true
}
