package feishu

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// sent is what a send answers: the new message.
type sent struct {
	MessageID string `json:"message_id"`
}

// Send sends m to chat as a card: as a reply to m.ReplyTo when set, in
// the chat's thread when it has one (replying to the thread's root with
// reply_in_thread), else as a new message in the chat. Files are not
// attached: Feishu needs them uploaded first, which the adapter does not
// do yet, so they are named at the end of the text instead.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	ref := gateway.MessageRef{Chat: chat}
	text := m.Text
	if len(m.Files) > 0 {
		a.log.Warn("feishu: attachments are not sent; their names are", "files", len(m.Files))
		text = strings.TrimSpace(text + "\n\n(Files not attached on Feishu: " + strings.Join(baseNames(m.Files), ", ") + ")")
	}
	if strings.TrimSpace(text) == "" {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: "feishu: the message has no text; give some"}
	}
	if chat.ID == "" {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: "feishu: the chat id is empty; replies go to a chat_id such as oc_…"}
	}
	content, err := card(text, m.Buttons)
	if err != nil {
		return ref, err
	}
	// uuid makes Feishu send a message once for one uuid within an hour.
	body := map[string]any{"msg_type": "interactive", "content": content, "uuid": newUUID()}
	var path string
	switch {
	case m.ReplyTo != "":
		path = "/open-apis/im/v1/messages/" + url.PathEscape(m.ReplyTo) + "/reply"
	case chat.Thread != "":
		path = "/open-apis/im/v1/messages/" + url.PathEscape(chat.Thread) + "/reply"
		body["reply_in_thread"] = true
	default:
		path = "/open-apis/im/v1/messages?receive_id_type=chat_id"
		body["receive_id"] = chat.ID
	}
	var out sent
	if err := a.call(ctx, http.MethodPost, path, body, &out); err != nil {
		return ref, classify(err)
	}
	ref.ID = out.MessageID
	if len(m.Buttons) > 0 {
		a.rememberCard(ref)
	}
	return ref, nil
}

// maxCards bounds the cards with buttons remembered; a card is forgotten
// once an edit takes its buttons away, so only cards left waiting count.
const maxCards = 1024

// rememberCard keeps the chat of a card with buttons, so a press on it is
// placed in the card's thread.
func (a *Adapter) rememberCard(ref gateway.MessageRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cards) >= maxCards {
		for id := range a.cards {
			delete(a.cards, id)
			break
		}
	}
	a.cards[ref.ID] = ref.Chat
}

// cardChat returns the chat a card with buttons was sent to, and whether
// it is known.
func (a *Adapter) cardChat(id string) (gateway.Chat, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.cards[id]
	return c, ok
}

// Edit replaces the card of a message sent earlier (PATCH, which cards
// allow without the 20-edit limit of text); an edit without buttons
// removes them.
func (a *Adapter) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	if ref.ID == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "feishu: the message to edit has no id"}
	}
	if strings.TrimSpace(m.Text) == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "feishu: an edit needs text; a card cannot be emptied"}
	}
	content, err := card(m.Text, m.Buttons)
	if err != nil {
		return err
	}
	path := "/open-apis/im/v1/messages/" + url.PathEscape(ref.ID)
	if err := a.call(ctx, http.MethodPatch, path, map[string]any{"content": content}, nil); err != nil {
		return classify(err)
	}
	if len(m.Buttons) == 0 {
		a.mu.Lock()
		delete(a.cards, ref.ID)
		a.mu.Unlock()
	}
	return nil
}

// Answer gives the text of the toast Feishu shows to whoever pressed a
// card's button: the card callback is answered in its own HTTP response,
// which waits for it (Feishu allows three seconds).
func (a *Adapter) Answer(_ context.Context, ev gateway.Event, text string) error {
	a.mu.Lock()
	ch := a.answers[ev.ID]
	a.mu.Unlock()
	if ch == nil {
		return fmt.Errorf("feishu: the card callback %q is no longer waiting for its answer", ev.ID)
	}
	select {
	case ch <- text:
	default:
	}
	return nil
}

// Typing does nothing: Feishu shows bots no typing indicator.
func (a *Adapter) Typing(context.Context, gateway.Chat) error { return nil }

// newUUID returns a random uuid for a send.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p[strings.LastIndexByte(p, '/')+1:]
	}
	return out
}
