package matrix

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Send sends m's text to the room as an m.text event, as a reply to
// m.ReplyTo, then m.Files uploaded to the media repository. The
// reference is the text's event, or the last file's when there is no
// text.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	ref := gateway.MessageRef{Chat: chat}
	if strings.TrimSpace(m.Text) == "" && len(m.Files) == 0 {
		return ref, &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: the message has neither text nor files; give one"}
	}
	if strings.TrimSpace(m.Text) != "" {
		content := map[string]any{"msgtype": "m.text", "body": m.Text}
		if m.ReplyTo != "" {
			content["m.relates_to"] = map[string]any{"m.in_reply_to": map[string]string{"event_id": m.ReplyTo}}
		}
		id, err := a.send(ctx, chat.ID, "m.room.message", content)
		if err != nil {
			return ref, err
		}
		ref.ID = id
		a.remember(id)
	}
	for _, path := range m.Files {
		id, err := a.sendFile(ctx, chat.ID, path)
		if err != nil {
			return ref, err
		}
		a.remember(id)
		if ref.ID == "" || strings.TrimSpace(m.Text) == "" {
			ref.ID = id
		}
	}
	return ref, nil
}

// remember notes an event hermes sent, so a reply to it addresses hermes.
func (a *Adapter) remember(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.ours) >= maxOurs {
		clear(a.ours)
	}
	a.ours[id] = true
}

// maxPending bounds the transaction ids kept for sends that failed
// without an answer.
const maxPending = 1024

// maxOurs bounds the event ids remembered to tell replies to hermes.
const maxOurs = 4096

// Edit replaces a message sent earlier with an m.replace event: clients
// show the new text in place, and older ones the "* text" fallback.
func (a *Adapter) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	if strings.TrimSpace(m.Text) == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: an edit needs text"}
	}
	if ref.ID == "" {
		return &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: an edit needs the event id of the message it replaces"}
	}
	content := map[string]any{
		"msgtype":       "m.text",
		"body":          "* " + m.Text,
		"m.new_content": map[string]any{"msgtype": "m.text", "body": m.Text},
		"m.relates_to":  map[string]any{"rel_type": "m.replace", "event_id": ref.ID},
	}
	_, err := a.send(ctx, ref.Chat.ID, "m.room.message", content)
	return err
}

// Answer does nothing: Matrix messages carry no buttons, so no press
// arrives to answer.
func (a *Adapter) Answer(ctx context.Context, ev gateway.Event, text string) error { return nil }

// Typing shows that the bot is typing in the room for five seconds.
func (a *Adapter) Typing(ctx context.Context, chat gateway.Chat) error {
	me, _ := a.who()
	if me == "" {
		return nil
	}
	path := "/_matrix/client/v3/rooms/" + pathEsc(chat.ID) + "/typing/" + pathEsc(me)
	return a.call(ctx, http.MethodPut, path, nil, map[string]any{"typing": true, "timeout": 5000}, nil)
}

// send puts one event into a room and returns its id. The transaction id
// makes a retry idempotent: a send that failed without an answer (the
// event may have arrived) is retried under the same id, which the server
// answers with the first event instead of a second copy. Ids are keyed by
// the room and content, and forgotten once the send succeeds, so the same
// text sent again later is a new message.
func (a *Adapter) send(ctx context.Context, roomID, typ string, content map[string]any) (string, error) {
	if roomID == "" {
		return "", &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: no room id; want one like !abc:example.org"}
	}
	body, err := marshal(content)
	if err != nil {
		return "", &gateway.SendError{Kind: gateway.Permanent, Message: err.Error(), Err: err}
	}
	if len(body) > MaxEvent-1024 {
		return "", &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("matrix: the event's content is %d bytes; a Matrix event holds at most %d bytes, so split the text", len(body), MaxEvent)}
	}
	sum := sha256.Sum256(append([]byte(roomID+"\x00"+typ+"\x00"), body...))
	key := hex.EncodeToString(sum[:])
	a.mu.Lock()
	txn, ok := a.pending[key]
	if !ok {
		a.txnN++
		txn = a.txnPrefix + "." + strconv.FormatUint(a.txnN, 10)
		if len(a.pending) >= maxPending {
			// Sends the outbox gave up on are never retried: forget them.
			clear(a.pending)
		}
		a.pending[key] = txn
	}
	a.mu.Unlock()
	var out struct {
		EventID string `json:"event_id"`
	}
	path := "/_matrix/client/v3/rooms/" + pathEsc(roomID) + "/send/" + pathEsc(typ) + "/" + pathEsc(txn)
	err = a.call(ctx, http.MethodPut, path, nil, json.RawMessage(body), &out)
	a.mu.Lock()
	if err == nil || !temporary(err) {
		delete(a.pending, key)
	}
	a.mu.Unlock()
	if err != nil {
		return "", classify(err)
	}
	return out.EventID, nil
}

// classify turns a failed request into a *gateway.SendError by the
// status and errcode, never the text: a rate limit waits, no answer or a
// 5xx is retried, and anything else (forbidden, not in the room, too
// large) is not.
func classify(err error) error {
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.rateLimited():
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: ae.RetryAfter, Message: ae.Code + " " + ae.Message, Err: err}
	case temporary(err):
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	case errors.As(err, &ae):
		return &gateway.SendError{Kind: gateway.Permanent, Message: ae.Code + " " + ae.Message, Err: err}
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: err.Error(), Err: err}
}
