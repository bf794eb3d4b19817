package telegram

import (
	"context"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Drafts reports whether chat shows drafts: private chats do, when the
// adapter was given Options.Drafts (groups answer TEXTDRAFT_PEER_INVALID).
func (a *Adapter) Drafts(chat gateway.Chat) bool {
	return a.drafts && chat.Type == gateway.DM
}

// Draft shows text, rendered as a message would be, as draft id of chat
// (sendMessageDraft). The same id animates in place; the next message
// the bot sends dismisses it.
func (a *Adapter) Draft(ctx context.Context, chat gateway.Chat, id int64, text string) error {
	chatID, err := parseID("chat id", chat.ID)
	if err != nil {
		return err
	}
	p := map[string]any{"chat_id": chatID, "draft_id": id, "text": RenderHTML(text), "parse_mode": "HTML"}
	if chat.Thread != "" && chat.Thread != generalTopic {
		thread, err := parseID("thread id", chat.Thread)
		if err != nil {
			return err
		}
		p["message_thread_id"] = thread
	}
	if err := a.call(ctx, "sendMessageDraft", p, nil); err != nil {
		return a.classify(err, chatID)
	}
	return nil
}

var _ gateway.Drafter = (*Adapter)(nil)
