package discordtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Alice is the user injected messages come from unless they name another.
func Alice() User { return User{ID: "42", Username: "alice", GlobalName: "Alice"} }

// Incoming is a message a user writes, for UserMessage.
type Incoming struct {
	// Channel is the channel id; "" means the direct-message channel
	// with From ("dm-" is not a snowflake, so it is "5" followed by the
	// user's id).
	Channel string
	// Guild puts the channel in a guild; "" is a direct message.
	Guild string
	// From defaults to Alice.
	From    User
	Content string
	// Mentions default to the users mentioned as <@id> in Content that
	// the server knows (the bot).
	Mentions []User
	// ReplyTo is the id of the message in the channel this one replies
	// to.
	ReplyTo     string
	Attachments []Attachment
	// Type defaults to 0 (DEFAULT), or 19 (REPLY) with ReplyTo.
	Type int
}

// DMChannel is the id of the direct-message channel with a user.
func DMChannel(u User) string { return "5" + u.ID }

// UserMessage dispatches MESSAGE_CREATE with the message in and returns
// it. Without the MESSAGE_CONTENT intent, a guild message that does not
// mention the bot arrives with empty content, as on Discord.
func (s *Server) UserMessage(in Incoming) Message {
	if in.From.ID == "" {
		in.From = Alice()
	}
	if in.Channel == "" {
		in.Channel = DMChannel(in.From)
	}
	s.mu.Lock()
	c := s.channelLocked(in.Channel, in.Guild)
	m := &Message{ID: s.newIDLocked(), Type: in.Type, ChannelID: in.Channel, GuildID: in.Guild, Author: in.From,
		Content: in.Content, Mentions: in.Mentions, Attachments: in.Attachments}
	if m.Mentions == nil {
		m.Mentions = []User{}
		if strings.Contains(in.Content, "<@"+s.Bot.ID+">") || strings.Contains(in.Content, "<@!"+s.Bot.ID+">") {
			m.Mentions = append(m.Mentions, s.Bot)
		}
	}
	if m.Attachments == nil {
		m.Attachments = []Attachment{}
	}
	if in.ReplyTo != "" {
		m.MessageReference = &Reference{MessageID: in.ReplyTo}
		m.ReferencedMessage = c.messages[in.ReplyTo]
		if m.Type == 0 {
			m.Type = 19
		}
	}
	c.messages[m.ID] = m
	msg := *m
	sess := s.sessionLocked()
	s.mu.Unlock()
	s.send(sess, "MESSAGE_CREATE", msg)
	return msg
}

// send dispatches a message event, gating its content by the session's
// intents.
func (s *Server) send(sess *gwSession, t string, m Message) {
	if sess == nil {
		return
	}
	mentioned := slices.ContainsFunc(m.Mentions, func(u User) bool { return u.ID == s.Bot.ID })
	if m.GuildID != "" && sess.intents&messageContentIntent == 0 && !mentioned {
		m.Content, m.Attachments = "", []Attachment{}
	}
	_ = s.dispatch(sess, t, m)
}

// Redeliver dispatches the MESSAGE_CREATE of a message again, with a new
// sequence number, as Discord may after a failover.
func (s *Server) Redeliver(channelID, messageID string) error {
	s.mu.Lock()
	c := s.channels[channelID]
	var m *Message
	if c != nil {
		m = c.messages[messageID]
	}
	sess := s.sessionLocked()
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("discordtest: no message %s in channel %s", messageID, channelID)
	}
	s.send(sess, "MESSAGE_CREATE", *m)
	return nil
}

// Press dispatches INTERACTION_CREATE: from presses the button with
// customID on the bot's message in the channel. It returns the
// interaction's id.
func (s *Server) Press(channelID, messageID string, from User, customID string) string {
	s.mu.Lock()
	c := s.channelLocked(channelID, "")
	var msg *Message
	if m := c.messages[messageID]; m != nil {
		cp := *m
		msg = &cp
	}
	id := s.newIDLocked()
	token := "itoken-" + id
	s.presses[id] = token
	in := map[string]any{"id": id, "application_id": s.AppID, "type": 3, "token": token, "version": 1,
		"channel_id": channelID, "data": map[string]any{"custom_id": customID, "component_type": 2}, "message": msg}
	if c.guild != "" {
		in["guild_id"] = c.guild
		in["member"] = map[string]any{"user": from}
	} else {
		in["user"] = from
	}
	sess := s.sessionLocked()
	s.mu.Unlock()
	if sess != nil {
		_ = s.dispatch(sess, "INTERACTION_CREATE", in)
	}
	return id
}

// Sent returns the bot's messages in the channel, in the order sent, as
// they are now (after edits).
func (s *Server) Sent(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	if c == nil {
		return nil
	}
	out := make([]Message, 0, len(c.sent))
	for _, id := range c.sent {
		out = append(out, *c.messages[id])
	}
	return out
}

// Callbacks returns the answers to interactions, in order.
func (s *Server) Callbacks() []Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.callbacks)
}

// Followups returns the messages sent through interactions' webhooks.
func (s *Server) Followups() []Followup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.followups)
}

// Requests returns the REST requests made, as "METHOD /path" with ids
// as {id} and tokens as {token}.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
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
			return fmt.Errorf("discordtest: waiting: %w", ctx.Err())
		}
	}
}

// WaitSent waits until the bot has sent at least n messages to the
// channel and returns them.
func (s *Server) WaitSent(ctx context.Context, channelID string, n int) ([]Message, error) {
	var out []Message
	err := s.Wait(ctx, func() bool {
		out = s.Sent(channelID)
		return len(out) >= n
	})
	if err != nil {
		return out, fmt.Errorf("%w: %d of %d messages sent to channel %s", err, len(out), n, channelID)
	}
	return out, nil
}
