package discord

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The message types that are something someone wrote: DEFAULT and REPLY.
// The others (joins, pins, boosts) are the system's.
const (
	msgDefault = 0
	msgReply   = 19
)

// componentInteraction is the interaction type of a button press.
const componentInteraction = 3

// event maps a dispatch to an Event; false for the dispatches that carry
// nothing for the gateway: other types, the bot's own messages and other
// bots', system messages.
func (a *Adapter) event(t string, d json.RawMessage) (gateway.Event, bool) {
	switch t {
	case "MESSAGE_CREATE":
		var m dcMessage
		if json.Unmarshal(d, &m) != nil {
			return gateway.Event{}, false
		}
		return a.message(m)
	case "INTERACTION_CREATE":
		var in dcInteraction
		if json.Unmarshal(d, &in) != nil {
			return gateway.Event{}, false
		}
		return a.interaction(in)
	}
	return gateway.Event{}, false
}

func (a *Adapter) message(m dcMessage) (gateway.Event, bool) {
	botID, _ := a.bot()
	if m.Author.Bot || m.Author.ID == "" || m.Author.ID == botID || (m.Type != msgDefault && m.Type != msgReply) {
		return gateway.Event{}, false
	}
	if strings.TrimSpace(m.Content) == "" && len(m.Attachments) == 0 {
		return gateway.Event{}, false
	}
	chat := chatOf(m.ChannelID, m.GuildID)
	return gateway.Event{
		ID: m.ID, Kind: gateway.KindMessage, Received: a.clock.Now(),
		Chat:      chat,
		User:      userOf(m.Author),
		Text:      commandText(m.Content, botID),
		Addressed: chat.Type == gateway.DM || addressed(m, botID),
		MessageID: m.ID,
		Media:     a.media(m.Attachments),
	}, true
}

func (a *Adapter) interaction(in dcInteraction) (gateway.Event, bool) {
	if in.Type != componentInteraction || in.Message == nil || in.Token == "" {
		return gateway.Event{}, false
	}
	var u dcUser
	switch {
	case in.Member != nil:
		u = in.Member.User
	case in.User != nil:
		u = *in.User
	default:
		return gateway.Event{}, false
	}
	a.presses.put(in.ID, in.Token, in.ApplicationID)
	chat := chatOf(in.ChannelID, in.GuildID)
	return gateway.Event{
		ID: in.ID, Kind: gateway.KindButton, Received: a.clock.Now(),
		Chat: chat, User: userOf(u), Addressed: true,
		Data: in.Data.CustomID,
		Ref:  gateway.MessageRef{Chat: chat, ID: in.Message.ID},
		Raw:  in.ID,
	}, true
}

// chatOf makes the chat of a channel: a direct message when it is in no
// guild. A thread is a channel of its own, so Thread stays empty.
func chatOf(channelID, guildID string) gateway.Chat {
	if guildID == "" {
		return gateway.Chat{ID: channelID, Type: gateway.DM}
	}
	return gateway.Chat{ID: channelID, Type: gateway.Group}
}

func userOf(u dcUser) gateway.User {
	name := u.GlobalName
	if name == "" {
		name = u.Username
	}
	return gateway.User{ID: u.ID, Name: name}
}

// addressed says whether a guild message is meant for the bot: it
// mentions the bot (the mentions list, or <@id> / <@!id> in the text) or
// replies to one of its messages. @everyone and role mentions do not
// count: they are meant for everyone.
func addressed(m dcMessage, botID string) bool {
	if botID == "" {
		return false
	}
	for _, u := range m.Mentions {
		if u.ID == botID {
			return true
		}
	}
	if strings.Contains(m.Content, "<@"+botID+">") || strings.Contains(m.Content, "<@!"+botID+">") {
		return true
	}
	return m.ReferencedMessage != nil && m.ReferencedMessage.Author.ID == botID
}

// media lists a message's attachments: images as photos, the rest as
// documents.
func (a *Adapter) media(atts []dcAttachment) []gateway.Media {
	var out []gateway.Media
	for _, at := range atts {
		kind := "document"
		if strings.HasPrefix(at.ContentType, "image/") {
			kind = "photo"
		}
		mime := at.ContentType
		if mime == "" {
			mime = "application/octet-stream"
		}
		u := at.URL
		out = append(out, gateway.Media{Kind: kind, Name: at.Filename, MIME: mime, Size: at.Size,
			Fetch: func(ctx context.Context) (io.ReadCloser, error) { return a.fetch(ctx, u) }})
	}
	return out
}

// commandText returns a message's text, with the bot's mention taken off
// the front of a command ("<@id> /new" is "/new"): in a guild the bot
// hears only what mentions it, and Discord has no "/new@bot" form, so a
// command could not be given there otherwise. Any other text keeps its
// mention.
func commandText(content, botID string) string {
	if botID == "" {
		return content
	}
	t := strings.TrimSpace(content)
	for _, m := range []string{"<@" + botID + ">", "<@!" + botID + ">"} {
		if rest, ok := strings.CutPrefix(t, m); ok && strings.HasPrefix(strings.TrimSpace(rest), "/") {
			return strings.TrimSpace(rest)
		}
	}
	return content
}
