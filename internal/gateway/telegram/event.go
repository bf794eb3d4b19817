package telegram

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/hermes-go/hermes/internal/gateway"
)

// event maps an update to an Event; false for updates that carry nothing
// for the gateway (my_chat_member, a press on a message too old to show).
func (a *Adapter) event(u tgUpdate) (gateway.Event, bool) {
	id := strconv.Itoa(u.UpdateID)
	now := a.clock.Now()
	switch {
	case u.Message != nil && u.Message.From != nil:
		m := u.Message
		text, ents := m.Text, m.Entities
		if text == "" {
			text, ents = m.Caption, m.CaptionEntities
		}
		return gateway.Event{
			ID: id, Kind: gateway.KindMessage, Received: now,
			Chat:      chatOf(m),
			User:      userOf(*m.From),
			Text:      text,
			Addressed: a.addressed(m, text, ents),
			MessageID: strconv.Itoa(m.MessageID),
			Media:     a.media(m),
		}, true
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		q := u.CallbackQuery
		chat := chatOf(q.Message)
		return gateway.Event{
			ID: id, Kind: gateway.KindButton, Received: now,
			Chat: chat, User: userOf(q.From), Addressed: true,
			Data: q.Data,
			Ref:  gateway.MessageRef{Chat: chat, ID: strconv.Itoa(q.Message.MessageID)},
			Raw:  q.ID,
		}, true
	}
	return gateway.Event{}, false
}

// chatOf maps the chat and the topic: a thread id counts only when
// is_topic_message is set, because replies in the General topic carry the
// root message's id as message_thread_id without being in a topic.
func chatOf(m *tgMessage) gateway.Chat {
	c := gateway.Chat{ID: strconv.FormatInt(m.Chat.ID, 10), Type: gateway.Group}
	if m.Chat.Type == "private" {
		c.Type = gateway.DM
	}
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		c.Thread = strconv.Itoa(m.MessageThreadID)
	}
	return c
}

func userOf(u tgUser) gateway.User {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	if u.Username != "" {
		name = "@" + u.Username
	}
	return gateway.User{ID: strconv.FormatInt(u.ID, 10), Name: name}
}

// addressed says whether a message is meant for the bot: every direct
// message; in groups a mention of @username (any case), a text_mention of
// the bot, a /command@username, or a reply to one of the bot's messages.
// In a forum topic every message replies to the topic's first message, so
// only a reply to another message counts.
func (a *Adapter) addressed(m *tgMessage, text string, ents []tgEntity) bool {
	if m.Chat.Type == "private" {
		return true
	}
	botID, botName := a.bot()
	if r := m.ReplyToMessage; r != nil && r.From != nil && r.From.ID == botID &&
		!(m.IsTopicMessage && r.MessageID == m.MessageThreadID) {
		return true
	}
	units := utf16.Encode([]rune(text))
	for _, e := range ents {
		if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(units) {
			continue
		}
		s := string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
		switch e.Type {
		case "mention":
			if botName != "" && strings.EqualFold(s, "@"+botName) {
				return true
			}
		case "text_mention":
			if e.User != nil && e.User.ID == botID {
				return true
			}
		case "bot_command":
			if _, to, ok := strings.Cut(s, "@"); ok && botName != "" && strings.EqualFold(to, botName) {
				return true
			}
		}
	}
	return false
}

// media lists the files of a message: the largest size of a photo, a
// document, a voice note.
func (a *Adapter) media(m *tgMessage) []gateway.Media {
	var out []gateway.Media
	if len(m.Photo) > 0 {
		best := m.Photo[0]
		for _, p := range m.Photo[1:] {
			if p.Width*p.Height > best.Width*best.Height || (p.Width*p.Height == best.Width*best.Height && p.FileSize > best.FileSize) {
				best = p
			}
		}
		out = append(out, a.medium("photo", best, "photo.jpg", "image/jpeg"))
	}
	if d := m.Document; d != nil {
		out = append(out, a.medium("document", *d, "document", "application/octet-stream"))
	}
	if v := m.Voice; v != nil {
		out = append(out, a.medium("voice", *v, "voice.ogg", "audio/ogg"))
	}
	return out
}

func (a *Adapter) medium(kind string, f tgFile, name, mime string) gateway.Media {
	if f.FileName != "" {
		name = f.FileName
	}
	if f.MimeType != "" {
		mime = f.MimeType
	}
	id, size := f.FileID, f.FileSize
	return gateway.Media{Kind: kind, Name: name, MIME: mime, Size: size,
		Fetch: func(ctx context.Context) (io.ReadCloser, error) { return a.fetch(ctx, id, size) }}
}

// fetch downloads a file: getFile for its path, then the file URL. The
// cloud Bot API serves at most 20 MB, so bigger files fail before any
// request, and a download that runs past 20 MB fails too.
func (a *Adapter) fetch(ctx context.Context, fileID string, size int64) (io.ReadCloser, error) {
	if size > MaxDownload {
		return nil, fmt.Errorf("telegram: the file is %d bytes; the Bot API lets bots download at most %d bytes (20 MB)", size, MaxDownload)
	}
	var f tgFile
	if err := a.call(ctx, "getFile", map[string]any{"file_id": fileID}, &f); err != nil {
		return nil, err
	}
	if f.FileSize > MaxDownload {
		return nil, fmt.Errorf("telegram: the file is %d bytes; the Bot API lets bots download at most %d bytes (20 MB)", f.FileSize, MaxDownload)
	}
	u := a.base + "/file/bot" + a.token + "/" + (&url.URL{Path: f.FilePath}).EscapedPath()
	req, err := newGet(ctx, u)
	if err != nil {
		return nil, a.transport(ctx, "file download", err)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, a.transport(ctx, "file download", err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		return nil, fmt.Errorf("telegram: file download: %s", resp.Status)
	}
	return &limitedBody{r: io.LimitReader(resp.Body, MaxDownload+1), c: resp.Body}, nil
}
