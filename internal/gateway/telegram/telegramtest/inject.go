package telegramtest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
)

// Alice is the user injected messages come from unless they name another.
func Alice() User { return User{ID: 42, FirstName: "Alice", Username: "alice"} }

// Incoming is a message a user writes, for UserMessage.
type Incoming struct {
	// Chat is the chat id; 0 means the private chat with From. Negative
	// ids are supergroups (groups when Group is set).
	Chat int64
	// Group makes a negative Chat a basic group instead of a supergroup.
	Group bool
	// Forum marks the chat as a forum; Thread and Topic place the
	// message in a topic (Topic sets is_topic_message).
	Forum  bool
	Thread int
	Topic  bool
	// From defaults to Alice.
	From User
	Text string
	// Entities default to the mentions and commands found in Text (or
	// Caption), as Telegram finds them; an empty non-nil slice means none.
	Entities []Entity
	// ReplyTo is the id of the message in the chat this one replies to.
	ReplyTo int
	// Photo attaches a photo in two sizes, the larger holding the bytes.
	Photo []byte
	// Document attaches a file.
	Document *Upload
	Voice    *Upload
	Caption  string
}

// Upload is a file a user sends. Size is what Telegram announces, 0 for
// len(Data).
type Upload struct {
	Name, MIME string
	Data       []byte
	Size       int64
}

// Entities finds the mention and bot_command entities Telegram would find
// in text, with offsets in UTF-16 code units.
func Entities(text string) []Entity {
	autoEntityRE := regexp.MustCompile(`@[A-Za-z0-9_]{3,32}|/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?`)
	var out []Entity
	for _, loc := range autoEntityRE.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && !isSpace(text[loc[0]-1]) {
			continue
		}
		typ := "mention"
		if text[loc[0]] == '/' {
			typ = "bot_command"
		}
		out = append(out, Entity{Type: typ, Offset: UTF16Len(text[:loc[0]]), Length: UTF16Len(text[loc[0]:loc[1]])})
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// UserMessage queues an update with the message in and returns the
// message and the update's id.
func (s *Server) UserMessage(in Incoming) (Message, int) {
	if in.From.ID == 0 {
		in.From = Alice()
	}
	if in.Chat == 0 {
		in.Chat = in.From.ID
	}
	s.mu.Lock()
	c := s.chatLocked(in.Chat)
	if in.Chat < 0 {
		c.info.Type = "supergroup"
		if in.Group {
			c.info.Type = "group"
		}
		c.info.Title = "Group"
		c.info.IsForum = in.Forum
	}
	from := in.From
	m := &Message{From: &from, Text: in.Text, Caption: in.Caption, MessageThreadID: in.Thread, IsTopicMessage: in.Topic}
	if in.ReplyTo != 0 {
		m.ReplyToMessage = c.messages[in.ReplyTo]
	}
	ents := in.Entities
	if ents == nil {
		ents = Entities(in.Text + in.Caption)
	}
	if in.Text != "" {
		m.Entities = ents
	} else {
		m.CaptionEntities = ents
	}
	if in.Photo != nil {
		small := s.addFileLocked("small.jpg", in.Photo[:min(len(in.Photo), 16)], 0)
		big := s.addFileLocked("photo.jpg", in.Photo, 0)
		m.Photo = []PhotoSize{
			{FileID: small, FileUniqueID: s.files[small].info.FileUniqueID, Width: 90, Height: 90, FileSize: s.files[small].info.FileSize},
			{FileID: big, FileUniqueID: s.files[big].info.FileUniqueID, Width: 1280, Height: 960, FileSize: s.files[big].info.FileSize},
		}
	}
	if d := in.Document; d != nil {
		id := s.addFileLocked(d.Name, d.Data, d.Size)
		f := s.files[id].info
		m.Document = &Document{FileID: id, FileUniqueID: f.FileUniqueID, FileName: d.Name, MimeType: d.MIME, FileSize: f.FileSize}
	}
	if v := in.Voice; v != nil {
		id := s.addFileLocked(v.Name, v.Data, v.Size)
		f := s.files[id].info
		m.Voice = &Voice{FileID: id, FileUniqueID: f.FileUniqueID, Duration: 1, MimeType: v.MIME, FileSize: f.FileSize}
	}
	s.addLocked(c, m)
	msg := *m
	s.mu.Unlock()
	return msg, s.push(Update{Message: &msg})
}

// Press queues a callback_query: from presses the button with data on the
// bot's message messageID in chat. It returns the query id and the
// update's id.
func (s *Server) Press(chat int64, messageID int, from User, data string) (string, int) {
	s.mu.Lock()
	s.nextCBQ++
	id := fmt.Sprintf("cbq-%d", s.nextCBQ)
	var msg *Message
	if c := s.chats[chat]; c != nil && c.messages[messageID] != nil {
		m := *c.messages[messageID]
		msg = &m
	}
	s.mu.Unlock()
	q := &CallbackQuery{ID: id, From: from, Message: msg, ChatInstance: fmt.Sprint(chat), Data: data}
	return id, s.push(Update{CallbackQuery: q})
}

// Push queues any update as it is (its update_id is assigned), for kinds
// the helpers do not make.
func (s *Server) Push(u Update) int { return s.push(u) }

// Sent returns the bot's messages in the chat, in the order sent, as they
// are now (after edits).
func (s *Server) Sent(chat int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sentLocked(chat)
}

func (s *Server) sentLocked(chat int64) []Message {
	c := s.chats[chat]
	if c == nil {
		return nil
	}
	out := make([]Message, 0, len(c.sent))
	for _, id := range c.sent {
		out = append(out, *c.messages[id])
	}
	return out
}

// Wait blocks until cond, called under no lock after every change to the
// server, returns true, or ctx ends.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("telegramtest: waiting: %w", ctx.Err())
		}
	}
}

// WaitSent waits until the bot has sent at least n messages to the chat
// and returns them.
func (s *Server) WaitSent(ctx context.Context, chat int64, n int) ([]Message, error) {
	var out []Message
	err := s.Wait(ctx, func() bool {
		out = s.Sent(chat)
		return len(out) >= n
	})
	if err != nil {
		return out, fmt.Errorf("%w: %d of %d messages sent to chat %d", err, len(out), n, chat)
	}
	return out, nil
}

// WaitConfirmed waits until the update with id is confirmed (no longer
// pending).
func (s *Server) WaitConfirmed(ctx context.Context, id int) error {
	return s.Wait(ctx, func() bool {
		return !slices.ContainsFunc(s.Pending(), func(u Update) bool { return u.UpdateID == id })
	})
}
