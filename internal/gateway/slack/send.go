package slack

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// posted is what chat.postMessage and chat.update answer.
type posted struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// Send posts m to chat as mrkdwn, in the chat's thread (Chat.Thread is
// the thread's parent ts; a reply never goes to a reply's ts), with its
// buttons as Block Kit actions. Mentions are not parsed (parse none,
// link_names off) and links are not unfurled, so a reply pings no one and
// fetches nothing. Files are not uploaded: the adapter does not take
// Slack's external upload flow, and says so rather than drop them.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	return a.send(ctx, chat, m, false)
}

// SendPlain is Send with m.Text shown as it is, for the outbox's one
// resend after Slack refused the formatting.
func (a *Adapter) SendPlain(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	return a.send(ctx, chat, m, true)
}

func (a *Adapter) send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing, plain bool) (gateway.MessageRef, error) {
	ref := gateway.MessageRef{Chat: chat}
	if chat.ID == "" {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: "slack: the chat has no channel id; give the channel (C…, G…) or DM (D…) id"}
	}
	if strings.TrimSpace(m.Text) == "" {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("slack: the message has no text (%d files); hermes sends only text to Slack, so say what the files are in words", len(m.Files))}
	}
	if len(m.Files) > 0 {
		a.log.Warn("slack: files are not uploaded to Slack; only the text is sent", "files", len(m.Files))
	}
	p, err := message(m, plain)
	if err != nil {
		return ref, err
	}
	p["channel"] = chat.ID
	p["parse"], p["link_names"], p["unfurl_links"], p["unfurl_media"] = "none", false, false, false
	if chat.Thread != "" {
		p["thread_ts"] = chat.Thread
	}
	if err := a.held.check(chat.ID, a.clock.Now()); err != nil {
		return ref, err
	}
	var out posted
	if err := a.call(ctx, "chat.postMessage", a.botToken, p, &out); err != nil {
		return ref, a.held.note(chat.ID, a.clock.Now(), classify(err))
	}
	ref.ID = out.TS
	if chat.Thread != "" && chat.Type == gateway.Group {
		a.answered.add(chat.ID, chat.Thread)
	}
	return ref, nil
}

// Edit replaces the text and buttons of a message sent earlier by
// chat.update; an edit without buttons removes them.
func (a *Adapter) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	return a.edit(ctx, ref, m, false)
}

// EditPlain is Edit with m.Text shown as it is.
func (a *Adapter) EditPlain(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	return a.edit(ctx, ref, m, true)
}

func (a *Adapter) edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing, plain bool) error {
	if ref.Chat.ID == "" || ref.ID == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("slack: cannot edit message %q in channel %q; an edit needs both the channel id and the message's ts", ref.ID, ref.Chat.ID)}
	}
	if strings.TrimSpace(m.Text) == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "slack: an edit needs text; hermes does not empty messages"}
	}
	p, err := message(m, plain)
	if err != nil {
		return err
	}
	if _, ok := p["blocks"]; !ok {
		// Slack keeps the blocks of a message whose update has none, and
		// shows them instead of the new text: an empty list removes the
		// buttons shown before.
		p["blocks"] = []any{}
	}
	p["channel"], p["ts"] = ref.Chat.ID, ref.ID
	p["parse"], p["link_names"] = "none", false
	if err := a.held.check(ref.Chat.ID, a.clock.Now()); err != nil {
		return err
	}
	if err := a.call(ctx, "chat.update", a.botToken, p, nil); err != nil {
		return a.held.note(ref.Chat.ID, a.clock.Now(), classify(err))
	}
	return nil
}

// Answer tells the person who pressed a button what came of it, in a
// message only they see: Slack has no reply to a press of its own.
func (a *Adapter) Answer(ctx context.Context, ev gateway.Event, text string) error {
	if ev.Chat.ID == "" || ev.User.ID == "" || strings.TrimSpace(text) == "" {
		return nil
	}
	p := map[string]any{"channel": ev.Chat.ID, "user": ev.User.ID, "text": escape(text), "parse": "none"}
	if ev.Chat.Thread != "" {
		p["thread_ts"] = ev.Chat.Thread
	}
	return a.call(ctx, "chat.postEphemeral", a.botToken, p, nil)
}

// Typing does nothing: Slack shows no typing indicator for a bot outside
// its assistant threads.
func (a *Adapter) Typing(context.Context, gateway.Chat) error { return nil }

// message builds the text and blocks of m: mrkdwn, or text as it is when
// plain. With buttons the text goes in section blocks too, because
// Slack shows only the blocks of a message that has them.
func message(m gateway.Outgoing, plain bool) (map[string]any, error) {
	text, kind := RenderMrkdwn(m.Text), "mrkdwn"
	if plain {
		text, kind = escape(m.Text), "plain_text"
	}
	p := map[string]any{"text": text, "mrkdwn": !plain}
	if len(m.Buttons) == 0 {
		return p, nil
	}
	var blocks []any
	for _, part := range sections(text) {
		blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": kind, "text": part}})
	}
	for i, row := range m.Buttons {
		if len(row) > 25 {
			return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("slack: button row %d has %d buttons; Slack takes at most 25 in a row", i+1, len(row))}
		}
		var els []any
		for j, btn := range row {
			if n := utf8.RuneCountInString(btn.Data); n < 1 || n > MaxButtonData {
				return nil, &gateway.SendError{Kind: gateway.Permanent,
					Message: fmt.Sprintf("slack: button %q has %d characters of data; Slack takes 1 to %d (keep a short id in the button and the state elsewhere)", btn.Text, n, MaxButtonData)}
			}
			if strings.TrimSpace(btn.Text) == "" {
				return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("slack: a button with data %q has no text; every button needs a label", btn.Data)}
			}
			label := btn.Text
			if utf8.RuneCountInString(label) > 75 {
				label = string([]rune(label)[:74]) + "…"
			}
			els = append(els, map[string]any{
				"type":      "button",
				"text":      map[string]any{"type": "plain_text", "text": label},
				"action_id": fmt.Sprintf("hermes_%d_%d", i, j),
				"value":     btn.Data,
			})
		}
		blocks = append(blocks, map[string]any{"type": "actions", "block_id": fmt.Sprintf("hermes_row_%d", i), "elements": els})
	}
	if len(blocks) > 50 {
		return nil, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("slack: the message needs %d blocks; Slack takes at most 50 (send less text with buttons)", len(blocks))}
	}
	p["blocks"] = blocks
	return p, nil
}

// sections cuts rendered text into parts of at most MaxSection
// characters, at a line break where there is one, never inside a rune,
// an escape (&amp;) or a link (<…>).
func sections(text string) []string {
	var out []string
	for utf8.RuneCountInString(text) > MaxSection {
		cut, n := len(text), 0
		for i := range text {
			if n == MaxSection {
				cut = i
				break
			}
			n++
		}
		if nl := strings.LastIndexByte(text[:cut], '\n'); nl > cut/2 {
			cut = nl + 1
		} else {
			if amp := strings.LastIndexByte(text[:cut], '&'); amp >= 0 && !strings.Contains(text[amp:cut], ";") {
				cut = amp
			}
			if lt := strings.LastIndexByte(text[:cut], '<'); lt >= 0 && !strings.Contains(text[lt:cut], ">") && lt > 0 {
				cut = lt
			}
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	return append(out, text)
}
